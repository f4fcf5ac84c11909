package io.delayq.spring.tx;

/** The outbox on MariaDB with the MySQL script, when one is reachable (see {@link TestDatabase}). */
class MariaDbOutboxIT extends AbstractOutboxIT {
  @Override
  TestDatabase database() {
    return TestDatabase.mariadb();
  }
}
