package io.delayq.spring.tx;

/** The outbox on H2, claiming rows by updating them, as on a database without SKIP LOCKED. */
class H2UpdateClaimOutboxIT extends AbstractOutboxIT {
  @Override
  TestDatabase database() {
    return TestDatabase.h2();
  }

  @Override
  String[] properties() {
    return new String[] {"delayq.outbox.relay.claim=update"};
  }
}
