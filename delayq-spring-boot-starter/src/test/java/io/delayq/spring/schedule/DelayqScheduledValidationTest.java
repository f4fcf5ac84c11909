package io.delayq.spring.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayq.spring.listener.DelayqListener;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A bad {@code @DelayqScheduled} attribute or {@code delayq.schedules.*} property fails the start,
 * naming the bean and attribute or the property; nothing is stored in Redis then.
 */
class DelayqScheduledValidationTest {
  record Digest(String kind) {}

  private final ApplicationContextRunner runner = ScheduleTesting.runner();

  /** Every message in the failure's cause chain, so that a test finds the one that names the setting. */
  private static String messages(Throwable failure) {
    List<String> messages = new ArrayList<>();
    for (Throwable t = failure; t != null; t = t.getCause()) {
      messages.add(String.valueOf(t.getMessage()));
    }
    return String.join("\n", messages);
  }

  static class Listener {
    @DelayqListener(queue = "test-schedule-validation")
    void on(String text) {}
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
    "delayq.schedules.tick.misfire=sometimes | delayq.schedules.tick.misfire | not one of skip, run-once",
    "delayq.schedules.tick.misfire=run-up-to:lots | delayq.schedules.tick.misfire | run-up-to:3",
    "delayq.schedules.tick.overlap=never | delayq.schedules.tick.overlap | allow, skip",
    "delayq.schedules.tick.zone=Mars/Olympus | delayq.schedules.tick.zone | Europe/Amsterdam",
    "delayq.schedules.tick.grace=-1s | delayq.schedules.tick.grace | at least 1 second",
    "delayq.schedules.tick.max-attempts=0 | delayq.schedules.tick.max-attempts | between 1 and",
    "delayq.schedules.tick.start=tomorrow | delayq.schedules.tick.start | ISO-8601",
    "delayq.schedules.tick.queue=no spaces | delayq.schedules.tick.queue | no spaces",
    "delayq.schedules.tick.every=forever | delayq.schedules.tick.every | forever",
  })
  void aBadPropertyFailsTheStartNamingIt(String property, String named, String detail) {
    runner.withBean(Listener.class)
        .withPropertyValues("delayq.schedules.default-queue=test-schedule-validation",
            "delayq.schedules.tick.every=1m", property)
        .run(context -> {
          assertThat(context).hasFailed();
          assertThat(messages(context.getStartupFailure())).contains(named).contains(detail);
        });
  }

  @Test
  void aScheduleWithNeitherCronNorEveryFailsTheStart() {
    runner.withBean(Listener.class)
        .withPropertyValues("delayq.schedules.tick.queue=test-schedule-validation", "delayq.schedules.tick.paused=true")
        .run(context -> assertThat(messages(context.getStartupFailure()))
            .contains("delayq.schedules.tick.cron", "neither is set"));
  }

  @Test
  void aScheduleOfThePropertiesOnAQueueWithoutListenerFailsTheStart() {
    runner.withPropertyValues("delayq.schedules.orphan.queue=test-schedule-orphan", "delayq.schedules.orphan.every=1h")
        .run(context -> assertThat(messages(context.getStartupFailure()))
            .contains("delayq.schedules.orphan.*", "queue 'test-schedule-orphan', which has no @DelayqListener"));
  }

  static class BadMisfire {
    @DelayqScheduled(every = "1m", misfire = "run-up-to:${test.runs}")
    void run() {}
  }

  static class Unresolvable {
    @DelayqScheduled(every = "${test.missing}")
    void run() {}
  }

  static class BothCronAndEvery {
    @DelayqScheduled(cron = "0 9 * * *", every = "1m")
    void run() {}
  }

  static class BadName {
    @DelayqScheduled(name = "no spaces", every = "1m")
    void run() {}
  }

  static class WrongPayload {
    @DelayqScheduled(every = "1m", jsonPayload = "[1, 2]")
    void run(Digest digest) {}
  }

  static class MissingPayload {
    @DelayqScheduled(every = "1m")
    void run(Digest digest) {}
  }

  static class ReturnsValue {
    @DelayqScheduled(every = "1m")
    String run() {
      return "";
    }
  }

  static class SameNameTwice {
    @DelayqScheduled(name = "twice", every = "1m")
    void one() {}

    @DelayqScheduled(name = "twice", every = "2m")
    void two() {}
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
    "BadMisfire | misfire = \"run-up-to:${test.runs}\" | run-up-to:x",
    "Unresolvable | every = \"${test.missing}\" | test.missing",
    "BothCronAndEvery | cron/every | both are set",
    "BadName | name = \"no spaces\" | not a valid schedule name",
    "WrongPayload | jsonPayload = \"[1, 2]\" | cannot be read from it",
    "MissingPayload | payload = \"\" | the schedule gives none",
    "ReturnsValue | it returns String | Accepted signatures",
    "SameNameTwice | schedule 'twice' of queue 'schedules' is declared by | own name",
  })
  void aBadAttributeFailsTheStartNamingTheBeanAndTheAttribute(String bean, String attribute, String detail)
      throws ClassNotFoundException {
    Class<?> type = Class.forName(DelayqScheduledValidationTest.class.getName() + "$" + bean);
    runner.withBean("badBean", type).withPropertyValues("test.runs=x").run(context -> {
      assertThat(context).hasFailed();
      assertThat(messages(context.getStartupFailure()))
          .contains("@DelayqScheduled " + bean + ".")
          .contains("of bean 'badBean'")
          .contains(attribute)
          .contains(detail);
    });
  }

  static class Resolved {
    @DelayqScheduled(queue = "${test.queue}", name = "${test.name}", every = "${test.every}", misfire = "${test.misfire}")
    void run() {}
  }

  @Test
  void placeholdersResolveInEveryAttribute() {
    String queue = ScheduleTesting.uniqueQueue("resolved");
    runner.withBean(Resolved.class)
        .withPropertyValues("test.queue=" + queue, "test.name=resolved-name", "test.every=PT2H", "test.misfire=run-once")
        .run(context -> {
          assertThat(context).hasNotFailed();
          io.delayq.Delayq delayq = context.getBean(io.delayq.Delayq.class);
          try {
            io.delayq.Schedule stored = delayq.queue(queue).schedules().get("resolved-name").orElseThrow().schedule();
            assertThat(stored.every()).isEqualTo(java.time.Duration.ofHours(2));
            assertThat(stored.misfire()).isEqualTo(io.delayq.Misfire.runOnce());
          } finally {
            ScheduleTesting.cleanUp(delayq, queue);
          }
        });
  }
}
