package io.delayq.spring.tx;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.delayq.Delayq;
import io.delayq.spring.DelayqTemplate;
import io.delayq.spring.TestRedisUrl;
import io.delayq.spring.autoconfigure.DelayqAutoConfiguration;
import io.delayq.spring.autoconfigure.DelayqPayloadAutoConfiguration;
import io.delayq.spring.autoconfigure.DelayqTemplateAutoConfiguration;
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
import org.springframework.core.env.Environment;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The after-commit delivery borrows a second pooled connection while the committing transaction
 * still holds its own. When as many transactions commit at once as the pool has connections (a
 * burst of requests on a pool sized for them, or a pool of one), each waits for a connection that
 * none of them will return: every commit stalls for the pool's connection timeout (30 s by
 * default in HikariCP), and the jobs are late by the relay's grace period on top.
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
      hikari.setUsername("sa");
      hikari.setMaximumPoolSize(POOL);
      hikari.setConnectionTimeout(CONNECTION_TIMEOUT_MS);
      return hikari;
    }
  }

  @Test
  void asManyConcurrentCommitsAsThePoolHasConnectionsDeliverAtOnceWithoutWaitingForTheConnectionTimeout()
      throws Exception {
    String queue = "ob-pool-" + UUID.randomUUID();
    try (ConfigurableApplicationContext app = new SpringApplicationBuilder(App.class)
        .web(WebApplicationType.NONE)
        .properties("test.db.url=" + TestDatabase.h2().url(), "delayq.redis.url=" + TestRedisUrl.get(),
            "delayq.outbox.relay.enabled=false", "spring.main.banner-mode=off")
        .run()) {
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
      } finally {
        threads.shutdownNow();
        app.getBean(Delayq.class).existingQueue(queue).ifPresent(q -> q.admin().delete(true));
      }
    }
  }
}
