package io.delayq.spring.tx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delayq.Delayq;
import io.delayq.DuplicatePolicy;
import io.delayq.JobInfo;
import io.delayq.spring.DelayqTemplate;
import io.delayq.spring.JobOptions;
import io.delayq.spring.TestRedisUrl;
import io.delayq.spring.autoconfigure.DelayqAutoConfiguration;
import io.delayq.spring.autoconfigure.DelayqPayloadAutoConfiguration;
import io.delayq.spring.autoconfigure.DelayqTemplateAutoConfiguration;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.aop.support.AopUtils;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.transaction.annotation.Transactional;

/** The README's examples, in an application as it would be written: @Transactional on a service. */
class TransactionalServiceExampleTest {
  static final String QUEUE = "order-timeouts-" + UUID.randomUUID();

  record OrderTimeout(String orderId) {}

  // --- README: Producing with DelayqTemplate ---
  static class Reminders {
    private final DelayqTemplate delayq;

    Reminders(DelayqTemplate delayq) {
      this.delayq = delayq;
    }

    String remind(String orderId) {
      // a POJO is written as JSON with the application's mapper; a String as text, a byte[] as is
      return delayq.schedule(QUEUE, new OrderTimeout(orderId), Duration.ofMinutes(30),
          JobOptions.ofId("timeout-" + orderId).withMaxAttempts(3).withOnDuplicate(DuplicatePolicy.KEEP));
    }
  }
  // --- end ---

  // --- README: Transactions ---
  static class Orders {
    private final JdbcTemplate jdbc;
    private final DelayqTemplate delayq;

    Orders(JdbcTemplate jdbc, DelayqTemplate delayq) {
      this.jdbc = jdbc;
      this.delayq = delayq;
    }

    @Transactional
    public String place(String orderId) {
      jdbc.update("INSERT INTO orders (id, state) VALUES (?, 'NEW')", orderId);
      // written to the delayq_outbox table by this transaction: gone if it rolls back, in Redis
      // once it commits, even if the process stops right after the commit
      return delayq.schedule(QUEUE, new OrderTimeout(orderId), Duration.ofMinutes(30));
    }

    @Transactional
    public void paid(String orderId, String timeoutJobId) {
      jdbc.update("UPDATE orders SET state = 'PAID' WHERE id = ?", orderId);
      delayq.cancel(QUEUE, timeoutJobId); // applied at commit, never if this transaction rolls back
    }
  }
  // --- end ---

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
              JdbcTemplateAutoConfiguration.class,
              TransactionAutoConfiguration.class,
              DelayqTemplateAutoConfiguration.class))
          .withBean(Orders.class)
          .withBean(Reminders.class);

  @AfterEach
  void removeQueue() {
    try (Delayq delayq = Delayq.connect(TestRedisUrl.get())) {
      delayq.existingQueue(QUEUE).ifPresent(q -> q.admin().delete(true));
    }
  }

  @Test
  void aPlacedOrdersTimeoutIsScheduledAndCancelledWhenItIsPaid() {
    runner.run(context -> {
      JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
      jdbc.execute("CREATE TABLE orders (id VARCHAR(64) PRIMARY KEY, state VARCHAR(16))");
      Orders orders = context.getBean(Orders.class);
      DelayqTemplate template = context.getBean(DelayqTemplate.class);

      String timeout = orders.place("o-1");
      JobInfo job = template.get(QUEUE, timeout).orElseThrow();
      assertThat(template.payload(job, OrderTimeout.class)).isEqualTo(new OrderTimeout("o-1"));

      assertThat(AopUtils.isAopProxy(orders)).as("@Transactional applies").isTrue();
      assertThatThrownBy(() -> orders.place("o-1")).as("a second insert of the order fails")
          .isInstanceOf(DuplicateKeyException.class);

      // an order placed in a transaction that rolls back leaves no order and no job
      String[] rolledBack = new String[1];
      new TransactionTemplate(context.getBean(PlatformTransactionManager.class)).executeWithoutResult(status -> {
        rolledBack[0] = orders.place("o-2");
        status.setRollbackOnly();
      });
      assertThat(template.get(QUEUE, rolledBack[0])).isEmpty();
      assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM orders WHERE id = 'o-2'", Integer.class)).isZero();
      assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM delayq_outbox", Integer.class)).isZero();

      orders.paid("o-1", timeout);
      assertThat(template.get(QUEUE, timeout)).isEmpty();
    });
  }

  @Test
  void aReminderKeepsTheFirstSchedule() {
    runner.run(context -> {
      Reminders reminders = context.getBean(Reminders.class);
      assertThat(reminders.remind("o-2")).isEqualTo("timeout-o-2");
      assertThat(reminders.remind("o-2")).isEqualTo("timeout-o-2");
      JobInfo job = context.getBean(DelayqTemplate.class).get(QUEUE, "timeout-o-2").orElseThrow();
      assertThat(job.maxAttempts()).isEqualTo(3);
    });
  }
}
