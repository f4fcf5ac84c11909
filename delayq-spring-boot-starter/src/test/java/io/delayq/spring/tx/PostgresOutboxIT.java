package io.delayq.spring.tx;

/** The outbox on PostgreSQL (required in CI), locking with FOR UPDATE SKIP LOCKED. */
class PostgresOutboxIT extends AbstractOutboxIT {
  @Override
  TestDatabase database() {
    return TestDatabase.postgres();
  }
}
