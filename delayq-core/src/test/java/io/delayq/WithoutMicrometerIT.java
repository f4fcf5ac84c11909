package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.delayq.testing.TestRedis;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The client as an application without Micrometer has it. The failsafe execution {@code
 * without-micrometer} runs this class alone, with every Micrometer jar taken off the classpath (see
 * delayq-core's pom); the default execution skips it.
 */
class WithoutMicrometerIT {
  @Test
  void noMicrometerJarIsOnTheClasspath() {
    for (String type : List.of(
        "io.micrometer.core.instrument.MeterRegistry",
        "io.micrometer.observation.ObservationRegistry",
        "io.micrometer.common.KeyValues",
        "io.micrometer.tracing.Tracer")) {
      assertThatThrownBy(() -> Class.forName(type)).as(type).isInstanceOf(ClassNotFoundException.class);
    }
  }

  @Test
  void schedulesRunsRetriesSettlesAndCountsWithoutMicrometer() {
    try (Delayq delayq = Delayq.builder().redisUrl(TestRedis.url()).build()) {
      JobQueue queue = delayq.queue(TestRedis.uniqueQueue("no-micrometer"));
      queue.scheduleAll(List.of(
          JobRequest.of("plain").withId("plain"),
          JobRequest.ofJson("{\"n\":1}").withId("json"),
          JobRequest.of("flaky").withId("flaky").withOnDuplicate(DuplicatePolicy.KEEP)));
      Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
      Map<String, Map<String, String>> headers = new ConcurrentHashMap<>();
      WorkerOptions options = WorkerOptions.builder().backoff(Backoff.fixed(Duration.ofMillis(50))).build();
      try (Workers workers = queue.startWorkers(job -> {
            headers.put(job.id(), job.traceHeaders());
            if (runs.computeIfAbsent(job.id(), id -> new AtomicInteger()).incrementAndGet() == 1
                && job.id().equals("flaky")) {
              throw new IllegalStateException("first attempt fails");
            }
          }, options)) {
        await().atMost(Duration.ofSeconds(10)).until(() -> runs.size() == 3 && runs.get("flaky").get() == 2);
        await().atMost(Duration.ofSeconds(10)).until(() -> queue.admin().stats().active() == 0);
      }
      assertThat(runs.get("plain")).hasValue(1);
      assertThat(headers.values()).allMatch(Map::isEmpty);

      queue.schedule(JobRequest.of("pulled").withId("pulled").withMaxAttempts(1));
      PullConsumer pull = queue.pull();
      LeasedJob pulled = pull.claim(1, Duration.ofSeconds(30)).get(0);
      assertThat(pull.nack(pulled, null, "given up")).isEqualTo(JobState.DEAD);
      assertThat(queue.admin().deadJobs(10)).extracting(JobInfo::id).containsExactly("pulled");
      assertThat(queue.admin().stats()).extracting(QueueStats::scheduled, QueueStats::active, QueueStats::dead)
          .containsExactly(0L, 0L, 1L);
      // KEEP again within the idempotency window: the job that ran is not scheduled twice
      assertThat(queue.schedule(JobRequest.of("flaky").withId("flaky").withOnDuplicate(DuplicatePolicy.KEEP)).outcome())
          .isEqualTo(ScheduledJob.Outcome.KEPT);
    }
  }
}
