package io.delayq.spring.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.Delayq;
import io.delayq.JobRequest;
import io.delayq.JobState;
import io.delayq.LeasedJob;
import io.delayq.ScheduleInfo;
import io.delayq.spring.TestRedisUrl;
import io.delayq.spring.health.DelayqHealthIndicator;
import io.delayq.spring.listener.DelayqListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code @DelayqScheduled} methods and {@code delayq.schedules.*} on a real Redis: the method runs
 * at each occurrence, once across instances; a queue shared with a listener; health; a schedule
 * an operator paused stays paused.
 */
class DelayqScheduledIT {
  record Digest(String kind) {}

  /** What ran, by occurrence id, with the instance that ran it. */
  static final class Recorder {
    final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    final List<Object> seen = new CopyOnWriteArrayList<>();
    final List<String> byListener = new CopyOnWriteArrayList<>();

    void ran(String jobId, Object value) {
      runs.computeIfAbsent(jobId, k -> new AtomicInteger()).incrementAndGet();
      seen.add(value);
    }

    long ranWithPrefix(String prefix) {
      return runs.keySet().stream().filter(id -> id.startsWith(prefix)).count();
    }
  }

  static class DigestJob {
    private final Recorder recorder;

    DigestJob(Recorder recorder) {
      this.recorder = recorder;
    }

    @DelayqScheduled(queue = "${test.queue}", every = "${test.every:1s}", jsonPayload = "{\"kind\":\"${test.kind}\"}")
    void send(Digest digest, LeasedJob job) {
      recorder.ran(job.id(), digest);
    }
  }

  static class Ticker {
    private final Recorder recorder;

    Ticker(Recorder recorder) {
      this.recorder = recorder;
    }

    @DelayqScheduled(queue = "${test.queue}", name = "tick", every = "1s")
    void tick(LeasedJob job) {
      recorder.ran(job.id(), "tick");
    }
  }

  /** The queue's listener: every job that is not an occurrence of a method's schedule. */
  static class QueueListener {
    private final Recorder recorder;

    QueueListener(Recorder recorder) {
      this.recorder = recorder;
    }

    @DelayqListener(queue = "${test.queue}")
    void on(String text, LeasedJob job) {
      recorder.byListener.add(job.id());
      recorder.ran(job.id(), text);
    }
  }

  static class NoArguments {
    static final AtomicInteger calls = new AtomicInteger();

    @DelayqScheduled(queue = "${test.queue}", name = "bare", every = "1s")
    void run() {
      calls.incrementAndGet();
    }
  }

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

  @Test
  void theMethodRunsAtEachOccurrenceWithThePayloadAndTheJob() {
    String queue = queue("method");
    Recorder recorder = new Recorder();
    ScheduleTesting.runner()
        .withBean(Recorder.class, () -> recorder)
        .withBean("digestJob", DigestJob.class, recorder)
        .withPropertyValues("test.queue=" + queue, "test.kind=daily")
        .run(context -> {
          assertThat(context).hasNotFailed();
          await().atMost(Duration.ofSeconds(5)).until(() -> recorder.runs.size() >= 2);
          // the name defaults to <bean name>.<method name>; each occurrence has its own id
          assertThat(recorder.runs.keySet()).allMatch(id -> id.startsWith("digestJob.send@"));
          assertThat(recorder.seen).contains(new Digest("daily"));
          ScheduleInfo stored = delayq.queue(queue).schedules().get("digestJob.send").orElseThrow();
          assertThat(stored.schedule().every()).isEqualTo(Duration.ofSeconds(1));
          assertThat(stored.schedule().payloadIsJson()).isTrue();
        });
  }

  @Test
  void aMethodWithoutParametersRuns() {
    String queue = queue("bare");
    NoArguments.calls.set(0);
    ScheduleTesting.runner()
        .withBean(NoArguments.class)
        .withPropertyValues("test.queue=" + queue)
        .run(context -> {
          assertThat(context).hasNotFailed();
          await().atMost(Duration.ofSeconds(5)).until(() -> NoArguments.calls.get() >= 1);
        });
  }

  @Test
  void twoInstancesOnOneRedisRunEachOccurrenceOnce() {
    String queue = queue("two");
    Recorder recorder = new Recorder();
    ApplicationContextRunner instance = ScheduleTesting.runner()
        .withBean(Recorder.class, () -> recorder)
        .withBean("digestJob", DigestJob.class, recorder)
        .withPropertyValues("test.queue=" + queue, "test.kind=shared");
    instance.run(first -> instance.run(second -> {
      assertThat(first).hasNotFailed();
      assertThat(second).hasNotFailed();
      await().atMost(Duration.ofSeconds(8)).until(() -> recorder.runs.size() >= 3);
    }));
    assertThat(recorder.runs).allSatisfy((id, count) -> assertThat(count.get()).as("runs of %s", id).isEqualTo(1));
    // both stored the same definition: the second start left it alone
    assertThat(delayq.queue(queue).schedules().get("digestJob.send").orElseThrow().version()).isEqualTo(1);
  }

  @Test
  void aScheduleOfThePropertiesFiresIntoTheListenerBesideAMethodsScheduleAndOrdinaryJobs() {
    String queue = queue("shared");
    Recorder recorder = new Recorder();
    ScheduleTesting.runner()
        .withBean(Recorder.class, () -> recorder)
        .withBean(QueueListener.class, recorder)
        .withBean(Ticker.class, recorder)
        .withPropertyValues("test.queue=" + queue,
            "delayq.schedules.report.queue=${test.queue}",
            "delayq.schedules.report.every=1s",
            "delayq.schedules.report.payload=report-${test.queue}")
        .run(context -> {
          assertThat(context).hasNotFailed();
          delayq.queue(queue).schedule(JobRequest.of("plain").withId("user@example.com"));
          await().atMost(Duration.ofSeconds(5)).until(() -> recorder.ranWithPrefix("report@") >= 1
              && recorder.ranWithPrefix("tick@") >= 1 && recorder.runs.containsKey("user@example.com"));
          assertThat(recorder.seen).contains("report-" + queue, "plain", "tick");
          assertThat(recorder.byListener).contains("user@example.com")
              .anyMatch(id -> id.startsWith("report@"))
              .noneMatch(id -> id.startsWith("tick@"));
        });
  }

  @Test
  void onAQueueWithoutListenerAJobOfNoScheduleHereFailsItsAttempt() {
    String queue = queue("stray");
    Recorder recorder = new Recorder();
    ScheduleTesting.runner()
        .withBean(Recorder.class, () -> recorder)
        .withBean(Ticker.class, recorder)
        .withPropertyValues("test.queue=" + queue)
        .run(context -> {
          assertThat(context).hasNotFailed();
          delayq.queue(queue).schedule(JobRequest.of("x").withId("other@2026-01-01T00:00:00Z").withMaxAttempts(1));
          await().atMost(Duration.ofSeconds(5)).until(() -> delayq.queue(queue).get("other@2026-01-01T00:00:00Z")
              .map(job -> job.state() == JobState.DEAD).orElse(false));
          assertThat(delayq.queue(queue).admin().deadJobs(10).get(0).lastError())
              .contains("schedule 'other' has no @DelayqScheduled method here");
          await().atMost(Duration.ofSeconds(5)).until(() -> recorder.ranWithPrefix("tick@") >= 1);
        });
  }

  @Test
  void healthListsTheDeclaredSchedulesWithTheirNextRun() {
    String queue = queue("health");
    Recorder recorder = new Recorder();
    ScheduleTesting.runner()
        .withBean(Recorder.class, () -> recorder)
        .withBean(Ticker.class, recorder)
        .withBean(QueueListener.class, recorder)
        .withPropertyValues("test.queue=" + queue, "delayq.schedules.hourly.queue=" + queue,
            "delayq.schedules.hourly.every=1h")
        .run(context -> {
          Health health = context.getBean(DelayqHealthIndicator.class).health();
          @SuppressWarnings("unchecked")
          Map<String, Map<String, Map<String, Object>>> schedules =
              (Map<String, Map<String, Map<String, Object>>>) health.getDetails().get("schedules");
          assertThat(schedules.get(queue)).containsOnlyKeys("hourly", "tick");
          assertThat(schedules.get(queue).get("hourly")).containsEntry("stored", true).containsEntry("paused", false);
          assertThat(schedules.get(queue).get("hourly").get("nextRun")).isNotNull();
        });
  }

  @Test
  void aSchedulePausedInRedisStaysPausedWhenTheApplicationStartsAgain() {
    String queue = queue("paused");
    Recorder recorder = new Recorder();
    ApplicationContextRunner app = ScheduleTesting.runner()
        .withBean(Recorder.class, () -> recorder)
        .withBean(Ticker.class, recorder)
        .withPropertyValues("test.queue=" + queue);
    app.run(context -> assertThat(context).hasNotFailed());
    delayq.queue(queue).schedules().pause("tick");
    app.run(context -> assertThat(context).hasNotFailed());
    assertThat(delayq.queue(queue).schedules().get("tick").orElseThrow().schedule().paused()).isTrue();
  }
}
