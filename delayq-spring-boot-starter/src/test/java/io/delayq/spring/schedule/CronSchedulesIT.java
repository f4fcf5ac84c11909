package io.delayq.spring.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.Delayq;
import io.delayq.LeasedJob;
import io.delayq.ScheduleInfo;
import io.delayq.spring.TestRedisUrl;
import io.delayq.spring.listener.DelayqListener;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Cron schedules through the starter: a method on a per-second cron, a zoned cron of the properties, a bad expression. */
class CronSchedulesIT {
  private final List<String> queues = new ArrayList<>();
  private Delayq delayq;

  @BeforeEach
  void connect() {
    delayq = Delayq.connect(TestRedisUrl.get());
  }

  @AfterEach
  void cleanUp() {
    queues.forEach(queue -> ScheduleTesting.cleanUp(delayq, queue));
    delayq.close();
  }

  private String queue(String purpose) {
    String queue = ScheduleTesting.uniqueQueue(purpose);
    queues.add(queue);
    return queue;
  }

  static class EverySecond {
    static final Set<String> ids = ConcurrentHashMap.newKeySet();

    @DelayqScheduled(queue = "${test.queue}", name = "per-second", cron = "* * * * * *")
    void run(LeasedJob job) {
      ids.add(job.id());
    }
  }

  @Test
  void aMethodOnASixFieldCronRunsEverySecond() {
    String queue = queue("cron-method");
    EverySecond.ids.clear();
    ScheduleTesting.runner()
        .withBean(EverySecond.class)
        .withPropertyValues("test.queue=" + queue)
        .run(context -> {
          assertThat(context).hasNotFailed();
          await().atMost(Duration.ofSeconds(5)).until(() -> EverySecond.ids.size() >= 2);
          assertThat(EverySecond.ids).allMatch(id -> id.startsWith("per-second@"));
        });
  }

  static class Reports {
    @DelayqListener(queue = "${test.queue}")
    void on(String text) {}
  }

  @Test
  void aCronOfThePropertiesIsReadInItsZone() {
    String queue = queue("cron-zone");
    ScheduleTesting.runner()
        .withBean(Reports.class)
        .withPropertyValues("test.queue=" + queue,
            "delayq.schedules.morning.queue=" + queue,
            "delayq.schedules.morning.cron=0 9 * * *",
            "delayq.schedules.morning.zone=Europe/Amsterdam")
        .run(context -> {
          assertThat(context).hasNotFailed();
          ScheduleInfo info = delayq.queue(queue).schedules().get("morning").orElseThrow();
          ZonedDateTime next = info.nextRun().atZone(ZoneId.of("Europe/Amsterdam"));
          assertThat(next.getHour()).isEqualTo(9);
          assertThat(next.getMinute()).isZero();
          assertThat(info.schedule().zone()).isEqualTo(ZoneId.of("Europe/Amsterdam"));
        });
  }

  static class BadCron {
    @DelayqScheduled(cron = "61 * * * *")
    void run() {}
  }

  @Test
  void aBadCronExpressionFailsTheStartNamingTheAttributeOrProperty() {
    ScheduleTesting.runner()
        .withBean(Reports.class)
        .withPropertyValues("test.queue=test-schedule-cron-bad", "delayq.schedules.bad.queue=test-schedule-cron-bad",
            "delayq.schedules.bad.cron=61 * * * *")
        .run(context -> {
          assertThat(context).hasFailed();
          assertThat(context.getStartupFailure()).hasStackTraceContaining("delayq.schedules.bad.cron");
        });
    ScheduleTesting.runner()
        .withBean("badCron", BadCron.class)
        .run(context -> assertThat(context.getStartupFailure())
            .hasStackTraceContaining("@DelayqScheduled BadCron.run() of bean 'badCron'")
            .hasStackTraceContaining("cron = \"61 * * * *\"")
            .hasStackTraceContaining("out of range 0-59"));
  }
}
