package io.delayq.spring.tx;

/** The outbox on H2, locking with FOR UPDATE SKIP LOCKED. */
class H2OutboxIT extends AbstractOutboxIT {
  @Override
  TestDatabase database() {
    return TestDatabase.h2();
  }
}
