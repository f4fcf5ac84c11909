package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.testing.TestRedis;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Failures that are not retried: the job goes to the dead-letter set on the attempt that threw. */
class NonRetryableIT {
  private Delayq delayq;

  @BeforeEach
  void connect() {
    delayq = Delayq.connect(TestRedis.url());
  }

  @AfterEach
  void close() {
    delayq.close();
  }

  private static WorkerOptions.Builder options() {
    return WorkerOptions.builder().backoff(Backoff.fixed(Duration.ofMillis(50))).shutdownTimeout(Duration.ofSeconds(5));
  }

  @Test
  void aNonRetryableJobExceptionBuriesTheJobOnItsFirstAttemptWithTheErrorAndItsCause() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("give-up"));
    List<Integer> attempts = new CopyOnWriteArrayList<>();
    try (Workers workers = queue.startWorkers(job -> {
          attempts.add(job.attempt());
          throw new NonRetryableJobException("order 42 no longer exists",
              new IllegalStateException("404 from the order service"));
        }, options().build())) {
      queue.schedule(JobRequest.of("42").withId("gone").withMaxAttempts(5));
      await().atMost(Duration.ofSeconds(5)).until(() -> queue.admin().stats().dead() == 1);
    }
    assertThat(attempts).containsExactly(1);
    JobInfo dead = queue.get("gone").orElseThrow();
    assertThat(dead.state()).isEqualTo(JobState.DEAD);
    assertThat(dead.attempts()).isEqualTo(1);
    assertThat(dead.maxAttempts()).isEqualTo(5);
    assertThat(dead.payloadAsString()).isEqualTo("42");
    assertThat(dead.lastError())
        .isEqualTo("io.delayq.NonRetryableJobException: order 42 no longer exists; caused by "
            + "java.lang.IllegalStateException: 404 from the order service");
    assertThat(queue.admin().deadJobs(10)).extracting(JobInfo::id).containsExactly("gone");
  }

  @Test
  void typesNamedNonRetryableAndTheirSubtypesGoDeadAtOnceWhileOthersAreRetried() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("non-retryable-types"));
    List<String> runs = new CopyOnWriteArrayList<>();
    WorkerOptions workerOptions = options().nonRetryable(IllegalArgumentException.class).build();
    try (Workers workers = queue.startWorkers(job -> {
          runs.add(job.id() + "#" + job.attempt());
          if (job.id().equals("bad-number")) {
            Integer.parseInt(job.payloadAsString()); // NumberFormatException, an IllegalArgumentException
          }
          if (job.id().equals("flaky") && job.attempt() == 1) {
            throw new IllegalStateException("try later");
          }
        }, workerOptions)) {
      queue.schedule(JobRequest.of("forty-two").withId("bad-number").withMaxAttempts(5));
      queue.schedule(JobRequest.of("x").withId("flaky").withMaxAttempts(5));
      await().atMost(Duration.ofSeconds(5)).until(() -> queue.admin().stats().dead() == 1 && queue.get("flaky").isEmpty());
    }
    assertThat(runs).containsOnlyOnce("bad-number#1").doesNotContain("bad-number#2").contains("flaky#1", "flaky#2");
    JobInfo dead = queue.get("bad-number").orElseThrow();
    assertThat(dead.state()).isEqualTo(JobState.DEAD);
    assertThat(dead.attempts()).isEqualTo(1);
    assertThat(dead.lastError()).startsWith("java.lang.NumberFormatException: For input string: \"forty-two\"");
  }

  @Test
  void aBuriedJobCanBeRequeuedWithFreshAttempts() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("give-up-requeue"));
    List<Integer> attempts = new CopyOnWriteArrayList<>();
    try (Workers workers = queue.startWorkers(job -> {
          attempts.add(job.attempt());
          if (attempts.size() == 1) {
            throw new NonRetryableJobException("not yet");
          }
        }, options().build())) {
      queue.schedule(JobRequest.of("x").withId("again"));
      await().atMost(Duration.ofSeconds(5)).until(() -> queue.admin().stats().dead() == 1);
      assertThat(queue.admin().requeueDead("again")).isTrue();
      await().atMost(Duration.ofSeconds(5)).until(() -> queue.get("again").isEmpty());
    }
    assertThat(attempts).containsExactly(1, 1);
  }
}
