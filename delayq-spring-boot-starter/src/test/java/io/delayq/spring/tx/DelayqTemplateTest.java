package io.delayq.spring.tx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delayq.Delayq;
import io.delayq.DuplicatePolicy;
import io.delayq.InvalidRequestException;
import io.delayq.JobInfo;
import io.delayq.JobNotFoundException;
import io.delayq.JobState;
import io.delayq.spring.DelayqTemplate;
import io.delayq.spring.JobOptions;
import io.delayq.spring.OutboxUnavailableException;
import io.delayq.spring.TestRedisUrl;
import io.delayq.spring.autoconfigure.DelayqAutoConfiguration;
import io.delayq.spring.autoconfigure.DelayqPayloadAutoConfiguration;
import io.delayq.spring.autoconfigure.DelayqTemplateAutoConfiguration;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.transaction.support.TransactionTemplate;

/** The template outside transactions, and inside ones that no DataSource takes part in. */
class DelayqTemplateTest {
  record Reminder(String orderId, int attempt) {}

  private final String queue = "tpl-" + UUID.randomUUID();
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withPropertyValues("delayq.redis.url=" + TestRedisUrl.get())
          .withConfiguration(AutoConfigurations.of(
              JacksonAutoConfiguration.class,
              DelayqAutoConfiguration.class,
              DelayqPayloadAutoConfiguration.class,
              DelayqTemplateAutoConfiguration.class));

  @AfterEach
  void removeQueue() {
    try (Delayq delayq = Delayq.connect(TestRedisUrl.get())) {
      delayq.existingQueue(queue).ifPresent(q -> q.admin().delete(true));
    }
  }

  @Test
  void pojosAreJsonWithoutTypeNamesTextIsTextAndBytesAreAsGiven() {
    runner.run(context -> {
      DelayqTemplate template = context.getBean(DelayqTemplate.class);
      String pojo = template.schedule(queue, new Reminder("o-1", 2), Duration.ofMinutes(5));
      String text = template.schedule(queue, "héllo", Duration.ofMinutes(5));
      byte[] raw = {0, (byte) 0xff, 7};
      String bytes = template.schedule(queue, raw, Duration.ofMinutes(5));

      JobInfo pojoJob = template.get(queue, pojo).orElseThrow();
      assertThat(pojoJob.payloadIsJson()).isTrue();
      assertThat(pojoJob.payloadAsString()).isEqualTo("{\"orderId\":\"o-1\",\"attempt\":2}");
      assertThat(template.payload(pojoJob, Reminder.class)).isEqualTo(new Reminder("o-1", 2));

      JobInfo textJob = template.get(queue, text).orElseThrow();
      assertThat(textJob.payloadIsJson()).isFalse();
      assertThat(textJob.payload()).isEqualTo("héllo".getBytes(StandardCharsets.UTF_8));
      assertThat(template.payload(textJob, String.class)).isEqualTo("héllo");

      JobInfo bytesJob = template.get(queue, bytes).orElseThrow();
      assertThat(bytesJob.payloadIsJson()).isFalse();
      assertThat(bytesJob.payload()).isEqualTo(raw);
    });
  }

  @Test
  void genericPayloadsAreReadAsDeclared() {
    runner.run(context -> {
      DelayqTemplate template = context.getBean(DelayqTemplate.class);
      String id = template.schedule(queue, List.of(new Reminder("a", 1), new Reminder("b", 2)), Duration.ofMinutes(1));
      Object read = template.payload(template.get(queue, id).orElseThrow(),
          new ParameterizedTypeReference<List<Reminder>>() {}.getType());
      assertThat(read).isEqualTo(List.of(new Reminder("a", 1), new Reminder("b", 2)));
    });
  }

  @Test
  void optionsGiveTheIdTheAttemptsAndTheDuplicatePolicy() {
    runner.run(context -> {
      DelayqTemplate template = context.getBean(DelayqTemplate.class);
      Instant at = Instant.now().plus(Duration.ofHours(1));
      JobOptions options = JobOptions.ofId("order-7").withMaxAttempts(3).withOnDuplicate(DuplicatePolicy.KEEP);
      assertThat(template.scheduleAt(queue, "first", at, options)).isEqualTo("order-7");
      template.scheduleAt(queue, "second", at.plusSeconds(60), options);

      JobInfo job = template.get(queue, "order-7").orElseThrow();
      assertThat(job.payloadAsString()).isEqualTo("first");
      assertThat(job.maxAttempts()).isEqualTo(3);
      assertThat(job.runAt()).isEqualTo(at.truncatedTo(java.time.temporal.ChronoUnit.MILLIS));

      template.scheduleAt(queue, "third", at, options.withOnDuplicate(DuplicatePolicy.REPLACE));
      assertThat(template.get(queue, "order-7").orElseThrow().payloadAsString()).isEqualTo("third");
    });
  }

  @Test
  void cancelAndRescheduleActOnRedisAtOnceOutsideATransaction() {
    runner.run(context -> {
      DelayqTemplate template = context.getBean(DelayqTemplate.class);
      String id = template.schedule(queue, "x", Duration.ofHours(1));
      Instant moved = template.reschedule(queue, id, Duration.ofHours(2));
      assertThat(template.get(queue, id).orElseThrow().runAt()).isEqualTo(moved);
      assertThat(moved).isAfter(Instant.now().plus(Duration.ofMinutes(119)));

      assertThat(template.cancel(queue, id)).isTrue();
      assertThat(template.get(queue, id)).isEmpty();
      assertThat(template.cancel(queue, id)).isFalse();
      assertThatThrownBy(() -> template.reschedule(queue, id, Duration.ofMinutes(1)))
          .isInstanceOf(JobNotFoundException.class);
    });
  }

  @Test
  void badOptionsFailWhenMadeWithTheCoresMessage() {
    assertThatThrownBy(() -> JobOptions.ofId("")).isInstanceOf(InvalidRequestException.class).hasMessageContaining("id");
    assertThatThrownBy(() -> JobOptions.defaults().withMaxAttempts(0))
        .isInstanceOf(InvalidRequestException.class).hasMessageContaining("maxAttempts");
  }

  @Test
  void withoutADataSourceATransactionalScheduleIsRefusedAndNothingIsWritten() {
    runner.withBean(ResourcelessTransactionManager.class, ResourcelessTransactionManager::new).run(context -> {
      DelayqTemplate template = context.getBean(DelayqTemplate.class);
      TransactionTemplate tx = new TransactionTemplate(context.getBean(ResourcelessTransactionManager.class));
      assertThatThrownBy(() -> tx.executeWithoutResult(s -> template.schedule(queue, "x", Duration.ZERO,
              JobOptions.ofId("refused"))))
          .isInstanceOf(OutboxUnavailableException.class)
          .hasMessageContaining("no DataSource bean")
          .hasMessageContaining("delayq.outbox.enabled=false");
      assertThat(template.get(queue, "refused")).isEmpty();
    });
  }

  @Test
  void withTheOutboxTurnedOffWritesWaitForTheCommitAndARollbackDropsThem() {
    runner.withPropertyValues("delayq.outbox.enabled=false")
        .withBean(ResourcelessTransactionManager.class, ResourcelessTransactionManager::new)
        .run(context -> {
          DelayqTemplate template = context.getBean(DelayqTemplate.class);
          TransactionTemplate tx = new TransactionTemplate(context.getBean(ResourcelessTransactionManager.class));

          tx.executeWithoutResult(s -> {
            template.schedule(queue, "kept", Duration.ofHours(1), JobOptions.ofId("committed"));
            assertThat(template.get(queue, "committed")).as("not before the commit").isEmpty();
          });
          assertThat(template.get(queue, "committed")).get().extracting(JobInfo::state).isEqualTo(JobState.SCHEDULED);

          tx.executeWithoutResult(s -> {
            template.schedule(queue, "dropped", Duration.ofHours(1), JobOptions.ofId("rolled-back"));
            assertThat(template.cancel(queue, "committed")).isTrue();
            s.setRollbackOnly();
          });
          assertThat(template.get(queue, "rolled-back")).isEmpty();
          assertThat(template.get(queue, "committed")).as("the cancel rolled back").isPresent();

          tx.executeWithoutResult(s -> template.cancel(queue, "committed"));
          assertThat(template.get(queue, "committed")).isEmpty();
        });
  }
}
