package io.delayq.spring.tx;

import static org.assertj.core.api.Assertions.fail;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.UUID;
import org.junit.jupiter.api.Assumptions;

/**
 * A real database for the outbox tests. PostgreSQL is one the machine runs (CI too): unreachable,
 * it fails the tests under {@code CI=true} and skips them, saying so, elsewhere. MariaDB is
 * optional: it is used when {@code DELAYQ_TEST_MARIADB} names it (then it must be reachable) or
 * when one answers on 127.0.0.1:3306.
 */
record TestDatabase(String name, String url, String user, String password) {

  static TestDatabase h2() {
    String db = "dq" + UUID.randomUUID().toString().replace("-", "");
    return new TestDatabase("H2", "jdbc:h2:mem:" + db + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000", "sa", "");
  }

  static TestDatabase postgres() {
    String url = env("DELAYQ_TEST_POSTGRES", "jdbc:postgresql://127.0.0.1:5432/test");
    return reachable(new TestDatabase("PostgreSQL", url, env("DELAYQ_TEST_POSTGRES_USER", "postgres"),
        env("DELAYQ_TEST_POSTGRES_PASSWORD", "")), "true".equals(System.getenv("CI")));
  }

  static TestDatabase mariadb() {
    String named = System.getenv("DELAYQ_TEST_MARIADB");
    String url = named != null && !named.isBlank() ? named : "jdbc:mariadb://127.0.0.1:3306/test";
    return reachable(new TestDatabase("MariaDB", url, env("DELAYQ_TEST_MARIADB_USER", "root"),
        env("DELAYQ_TEST_MARIADB_PASSWORD", "")), named != null && !named.isBlank());
  }

  Connection connect() throws SQLException {
    return DriverManager.getConnection(url, user, password);
  }

  private static TestDatabase reachable(TestDatabase db, boolean required) {
    try (Connection con = db.connect()) {
      con.isValid(5);
      return db;
    } catch (SQLException e) {
      String why = db.name + " at " + db.url + " is not reachable (" + e.getMessage() + ")";
      if (required) {
        fail(why + "; it is required here");
      }
      Assumptions.abort(why + "; these tests are skipped outside CI");
      return null;
    }
  }

  private static String env(String name, String fallback) {
    String value = System.getenv(name);
    return value == null || value.isBlank() ? fallback : value;
  }
}
