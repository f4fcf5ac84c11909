package io.delayq.spring.tx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delayq.Delayq;
import io.delayq.spring.DelayqTemplate;
import io.delayq.spring.OutboxUnavailableException;
import io.delayq.spring.TestRedisUrl;
import io.delayq.spring.autoconfigure.DelayqAutoConfiguration;
import io.delayq.spring.autoconfigure.DelayqPayloadAutoConfiguration;
import io.delayq.spring.autoconfigure.DelayqTemplateAutoConfiguration;
import io.delayq.spring.internal.tx.Outbox;
import io.delayq.spring.internal.tx.OutboxRelay;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/** How the outbox is configured, on H2 and the test Redis. */
class OutboxConfigurationTest {
  private final String queue = "obc-" + UUID.randomUUID();
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withPropertyValues(
              "delayq.redis.url=" + TestRedisUrl.get(),
              "spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1")
          .withConfiguration(AutoConfigurations.of(
              JacksonAutoConfiguration.class,
              DelayqAutoConfiguration.class,
              DelayqPayloadAutoConfiguration.class,
              DataSourceAutoConfiguration.class,
              DataSourceTransactionManagerAutoConfiguration.class,
              DelayqTemplateAutoConfiguration.class));

  @AfterEach
  void removeQueue() {
    try (Delayq delayq = Delayq.connect(TestRedisUrl.get())) {
      delayq.existingQueue(queue).ifPresent(q -> q.admin().delete(true));
    }
  }

  @Test
  void anEmbeddedDatabaseGetsTheTableUnderItsConfiguredNameAndTheTemplateUsesTheOutbox() {
    runner.withPropertyValues("delayq.outbox.table-name=custom_outbox").run(context -> {
      assertThat(context).hasSingleBean(Outbox.class).hasSingleBean(OutboxRelay.class);
      JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
      List<String> indexes = jdbc.queryForList(
          "SELECT INDEX_NAME FROM INFORMATION_SCHEMA.INDEXES WHERE TABLE_NAME = 'CUSTOM_OUTBOX'", String.class);
      assertThat(indexes).contains("CUSTOM_OUTBOX_RELAY", "CUSTOM_OUTBOX_JOB");

      TransactionTemplate tx = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
      String id = tx.execute(s -> {
        String scheduled = context.getBean(DelayqTemplate.class).schedule(queue, "x", Duration.ofHours(1));
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM custom_outbox", Integer.class)).isEqualTo(1);
        return scheduled;
      });
      assertThat(context.getBean(DelayqTemplate.class).get(queue, id)).isPresent();
      assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM custom_outbox", Integer.class)).isZero();
    });
  }

  @Test
  void withoutTheTableTheApplicationStartsAndATransactionalWriteSaysHowToCreateIt() {
    runner.withPropertyValues("delayq.outbox.initialize-schema=never").run(context -> {
      assertThat(context).hasNotFailed().hasSingleBean(OutboxRelay.class);
      TransactionTemplate tx = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
      assertThatThrownBy(() -> tx.executeWithoutResult(s ->
              context.getBean(DelayqTemplate.class).schedule(queue, "x", Duration.ZERO)))
          .isInstanceOf(OutboxUnavailableException.class)
          .hasMessageContaining("table delayq_outbox cannot be used")
          .hasMessageContaining("schema-<h2|postgresql|mysql>.sql")
          .hasMessageContaining("delayq.outbox.initialize-schema=always");
      assertThat(context.getBean(Delayq.class).existingQueue(queue)).isEmpty();
    });
  }

  @Test
  void aTableNameThatCouldChangeTheSqlIsRefusedAtStartup() {
    runner.withPropertyValues("delayq.outbox.table-name=outbox; DROP TABLE users").run(context ->
        assertThat(context.getStartupFailure()).hasStackTraceContaining("is not allowed")
            .hasStackTraceContaining("letters, digits and '_'"));
  }

  @Test
  void aTransactionThatDoesNotIncludeTheDataSourceIsRefused() {
    runner.withBean("brokerTransactions", ResourcelessTransactionManager.class, ResourcelessTransactionManager::new)
        .run(context -> {
          TransactionTemplate tx = new TransactionTemplate(context.getBean("brokerTransactions",
              PlatformTransactionManager.class));
          JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
          assertThatThrownBy(() -> tx.executeWithoutResult(s ->
                  context.getBean(DelayqTemplate.class).schedule(queue, "x", Duration.ZERO)))
              .isInstanceOf(OutboxUnavailableException.class)
              .hasMessageContaining("does not include the DataSource");
          assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM delayq_outbox", Integer.class)).isZero();
        });
  }

  @Test
  void theOutboxAndTheRelayCanBeTurnedOff() {
    runner.withPropertyValues("delayq.outbox.relay.enabled=false").run(context ->
        assertThat(context).hasSingleBean(Outbox.class).doesNotHaveBean(OutboxRelay.class));
    runner.withPropertyValues("delayq.outbox.enabled=false").run(context ->
        assertThat(context).hasSingleBean(DelayqTemplate.class).doesNotHaveBean(Outbox.class)
            .doesNotHaveBean(OutboxRelay.class));
  }

  @Test
  void withSeveralDataSourcesAndNoPrimaryATransactionalWriteSaysSo() {
    new ApplicationContextRunner()
        .withPropertyValues("delayq.redis.url=" + TestRedisUrl.get())
        .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, DelayqAutoConfiguration.class,
            DelayqPayloadAutoConfiguration.class, DelayqTemplateAutoConfiguration.class))
        .withBean("one", DataSource.class, JdbcDataSource::new)
        .withBean("two", DataSource.class, JdbcDataSource::new)
        .withBean(ResourcelessTransactionManager.class, ResourcelessTransactionManager::new)
        .run(context -> {
          assertThat(context).doesNotHaveBean(Outbox.class);
          TransactionTemplate tx = new TransactionTemplate(context.getBean(ResourcelessTransactionManager.class));
          assertThatThrownBy(() -> tx.executeWithoutResult(s ->
                  context.getBean(DelayqTemplate.class).cancel(queue, "some-id")))
              .isInstanceOf(OutboxUnavailableException.class)
              .hasMessageContaining("2 DataSource beans and none of them is @Primary");
        });
  }

  @Test
  void withoutSpringJdbcTheTemplateStillWorksOutsideTransactions() {
    runner.withClassLoader(new FilteredClassLoader("org.springframework.jdbc", "org.springframework.boot.jdbc"))
        .run(context -> {
          assertThat(context).hasNotFailed().doesNotHaveBean(Outbox.class);
          DelayqTemplate template = context.getBean(DelayqTemplate.class);
          String id = template.schedule(queue, "direct", Duration.ofHours(1));
          assertThat(template.get(queue, id)).isPresent();
        });
  }
}
