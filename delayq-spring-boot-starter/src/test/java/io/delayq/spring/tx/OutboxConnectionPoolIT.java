package io.delayq.spring.tx;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.delayq.Delayq;
import io.delayq.spring.DelayqTemplate;
import io.delayq.spring.TestRedisUrl;
import io.delayq.spring.autoconfigure.DelayqAutoConfiguration;
import io.delayq.spring.autoconfigure.DelayqPayloadAutoConfiguration;
import io.delayq.spring.autoconfigure.DelayqTemplateAutoConfiguration;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The after-commit delivery must not borrow a second pooled connection while the committing
 * transaction still holds its own. If it did, then when as many transactions commit at once as the
 * pool has connections (a burst of requests on a pool sized for them, or a pool of one), each would
 * wait for a connection that none of them will return: every commit would stall for the pool's
 * connection timeout (30 s by default in HikariCP), and the jobs would be late by the relay's grace
 * period on top. It runs on the transaction's own connection, and hands it back to the transaction
 * manager as it found it.
 */
class OutboxConnectionPoolIT {
  private static final int POOL = 2;
  private static final long CONNECTION_TIMEOUT_MS = 4000;

  @Configuration(proxyBeanMethods = false)
  @ImportAutoConfiguration({JacksonAutoConfiguration.class, DelayqAutoConfiguration.class,
      DelayqPayloadAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
      DelayqTemplateAutoConfiguration.class})
  static class App {
    @Bean(destroyMethod = "close")
    DataSource dataSource(Environment env) {
      HikariDataSource hikari = new HikariDataSource();
      hikari.setJdbcUrl(env.getRequiredProperty("test.db.url"));
      hikari.setUsername(env.getRequiredProperty("test.db.user"));
      hikari.setPassword(env.getProperty("test.db.password", ""));
      hikari.setMaximumPoolSize(POOL);
      hikari.setConnectionTimeout(CONNECTION_TIMEOUT_MS);
      return hikari;
    }
  }

  private static ConfigurableApplicationContext start(TestDatabase db, String table) {
    return new SpringApplicationBuilder(App.class)
        .web(WebApplicationType.NONE)
        .properties("test.db.url=" + db.url(), "test.db.user=" + db.user(), "test.db.password=" + db.password(),
            "delayq.redis.url=" + TestRedisUrl.get(), "delayq.outbox.table-name=" + table,
            "delayq.outbox.initialize-schema=always", "delayq.outbox.relay.enabled=false",
            "spring.main.banner-mode=off")
        .run();
  }

  private static String table() {
    return "dq_outbox_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
  }

  private static void dropTable(TestDatabase db, String table) throws Exception {
    try (Connection con = db.connect(); Statement st = con.createStatement()) {
      st.execute("DROP TABLE IF EXISTS " + table);
    }
  }

  @Test
  void asManyConcurrentCommitsAsThePoolHasConnectionsDeliverAtOnceWithoutWaitingForTheConnectionTimeout()
      throws Exception {
    concurrentCommitsOnAFullPool(TestDatabase.h2());
  }

  @Test
  void onPostgresqlTooAsManyConcurrentCommitsAsThePoolHasConnectionsDeliverAtOnce() throws Exception {
    concurrentCommitsOnAFullPool(TestDatabase.postgres());
  }

  private void concurrentCommitsOnAFullPool(TestDatabase db) throws Exception {
    String queue = "ob-pool-" + UUID.randomUUID();
    String table = table();
    try (ConfigurableApplicationContext app = start(db, table)) {
      TransactionTemplate tx = new TransactionTemplate(app.getBean(PlatformTransactionManager.class));
      DelayqTemplate template = app.getBean(DelayqTemplate.class);
      // every transaction has written its row and holds its connection when the first commits
      CyclicBarrier allAtCommit = new CyclicBarrier(POOL);
      ExecutorService threads = Executors.newFixedThreadPool(POOL);
      try {
        List<Future<String>> ids = new ArrayList<>();
        long started = System.nanoTime();
        for (int i = 0; i < POOL; i++) {
          int n = i;
          ids.add(threads.submit(() -> tx.execute(status -> {
            String id = template.schedule(queue, "job " + n, Duration.ofHours(1));
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
              @Override
              public void beforeCommit(boolean readOnly) {
                try {
                  allAtCommit.await(10, TimeUnit.SECONDS);
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              }
            });
            return id;
          })));
        }
        List<String> scheduled = new ArrayList<>();
        for (Future<String> id : ids) {
          scheduled.add(id.get(30, TimeUnit.SECONDS));
        }
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

        assertThat(tookMs).as("the commits' time, against a connection timeout of %d ms", CONNECTION_TIMEOUT_MS)
            .isLessThan(CONNECTION_TIMEOUT_MS / 2);
        for (String id : scheduled) {
          assertThat(template.get(queue, id)).as("job %s in Redis when its commit returned", id).isPresent();
        }
        assertThat(rows(app, table)).as("rows left for the relay").isZero();
      } finally {
        threads.shutdownNow();
        app.getBean(Delayq.class).existingQueue(queue).ifPresent(q -> q.admin().delete(true));
      }
    } finally {
      dropTable(db, table);
    }
  }

  record ConnectionState(boolean autoCommit, int isolation, boolean readOnly) {
    static ConnectionState of(Connection con) throws SQLException {
      return new ConnectionState(con.getAutoCommit(), con.getTransactionIsolation(), con.isReadOnly());
    }
  }

  @Test
  void theDeliveryLeavesTheTransactionsConnectionToTheTransactionManagerAsItWasAtCommit() throws Exception {
    String queue = "ob-pool-" + UUID.randomUUID();
    TestDatabase db = TestDatabase.h2();
    try (ConfigurableApplicationContext app = start(db, table())) {
      DataSource dataSource = app.getBean(DataSource.class);
      TransactionTemplate tx = new TransactionTemplate(app.getBean(PlatformTransactionManager.class));
      // H2 takes writes in a read-only transaction (the flag is a hint there); the delivery must
      // still write, and hand the flag back
      tx.setReadOnly(true);
      tx.setIsolationLevel(TransactionDefinition.ISOLATION_SERIALIZABLE);
      DelayqTemplate template = app.getBean(DelayqTemplate.class);
      ConnectionState[] atCommit = new ConnectionState[1];
      ConnectionState[] afterDelivery = new ConnectionState[1];
      try {
        String id = tx.execute(status -> {
          Connection con = DataSourceUtils.getConnection(dataSource);
          DataSourceUtils.releaseConnection(con, dataSource);
          TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public int getOrder() {
              return Ordered.HIGHEST_PRECEDENCE;
            }

            @Override
            public void afterCommit() {
              atCommit[0] = state(con);
            }
          });
          String scheduled = template.schedule(queue, "once", Duration.ofHours(1));
          // after every afterCommit (the delivery's), before the transaction manager cleans up
          TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void afterCompletion(int completion) {
              afterDelivery[0] = state(con);
            }
          });
          return scheduled;
        });

        assertThat(atCommit[0]).isEqualTo(
            new ConnectionState(false, Connection.TRANSACTION_SERIALIZABLE, true));
        assertThat(afterDelivery[0]).as("the connection after the delivery ran on it").isEqualTo(atCommit[0]);
        assertThat(template.get(queue, id)).as("delivered at commit").isPresent();
        try (Connection again = dataSource.getConnection()) {
          assertThat(ConnectionState.of(again)).as("a connection from the pool after the transaction manager returned it")
              .isEqualTo(new ConnectionState(true, Connection.TRANSACTION_READ_COMMITTED, false));
        }
      } finally {
        app.getBean(Delayq.class).existingQueue(queue).ifPresent(q -> q.admin().delete(true));
      }
    }
  }

  @Test
  void withoutTheTransactionsConnectionBoundTheDeliveryBorrowsOne() throws Exception {
    String queue = "ob-pool-" + UUID.randomUUID();
    TestDatabase db = TestDatabase.h2();
    String table = table();
    try (ConfigurableApplicationContext app = start(db, table)) {
      DataSource dataSource = app.getBean(DataSource.class);
      TransactionTemplate tx = new TransactionTemplate(app.getBean(PlatformTransactionManager.class));
      DelayqTemplate template = app.getBean(DelayqTemplate.class);
      boolean[] unbound = new boolean[1];
      try {
        String id = tx.execute(status -> {
          String scheduled = template.schedule(queue, "borrowed", Duration.ofHours(1));
          // stands in for a transaction manager that releases its connection before the callbacks
          TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            Object holder;

            @Override
            public int getOrder() {
              return Ordered.HIGHEST_PRECEDENCE;
            }

            @Override
            public void afterCommit() {
              holder = TransactionSynchronizationManager.unbindResource(dataSource);
              unbound[0] = true;
            }

            @Override
            public void afterCompletion(int completion) {
              if (holder != null) {
                TransactionSynchronizationManager.bindResource(dataSource, holder);
              }
            }
          });
          return scheduled;
        });

        assertThat(unbound[0]).isTrue();
        assertThat(template.get(queue, id)).as("delivered at commit on a borrowed connection").isPresent();
        assertThat(rows(app, table)).isZero();
      } finally {
        app.getBean(Delayq.class).existingQueue(queue).ifPresent(q -> q.admin().delete(true));
      }
    }
  }

  private static ConnectionState state(Connection con) {
    try {
      return ConnectionState.of(con);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static int rows(ConfigurableApplicationContext app, String table) {
    Integer n = new JdbcTemplate(app.getBean(DataSource.class)).queryForObject("SELECT COUNT(*) FROM " + table, Integer.class);
    return n == null ? -1 : n;
  }
}
