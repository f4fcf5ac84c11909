package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.delayq.embedded.RedisServerProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * "Failed" and "outcome unknown" are different answers, and a client resumes within about a
 * second of Redis coming back.
 */
class OutcomeIT {

  @Test
  void aScheduleThatTimesOutSaysItsOutcomeIsUnknownAndARetryWithKeepIsSafe() {
    try (RedisServerProcess redis = RedisServerProcess.builder().start();
        Delayq delayq = Delayq.builder().redisUrl(redis.uri()).commandTimeout(Duration.ofMillis(300)).build()) {
      JobQueue queue = delayq.queue("unknown");
      pause(redis, 1_000);
      assertThatThrownBy(() -> queue.schedule(JobRequest.of("x").withId("maybe")))
          .isInstanceOf(OutcomeUnknownException.class)
          .hasMessageContaining("may or may not have taken effect");
      // The command may still run once Redis resumes, or may have been dropped with its link:
      // retrying with KEEP is safe either way, and leaves exactly one job.
      ScheduledJob[] retry = new ScheduledJob[1];
      await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> {
        retry[0] = queue.schedule(JobRequest.of("x").withId("maybe").withOnDuplicate(DuplicatePolicy.KEEP));
        return true;
      });
      assertThat(retry[0].outcome()).isIn(ScheduledJob.Outcome.KEPT, ScheduledJob.Outcome.CREATED);
      assertThat(queue.admin().stats().scheduled()).isEqualTo(1);
    }
  }

  @Test
  void aCallRefusedWhileRedisIsDownFailedWithoutEffect() {
    try (RedisServerProcess redis = RedisServerProcess.builder().start();
        Delayq delayq = Delayq.builder().redisUrl(redis.uri()).commandTimeout(Duration.ofSeconds(2)).build()) {
      JobQueue queue = delayq.queue("down");
      redis.kill();
      await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
          assertThatThrownBy(() -> queue.schedule(JobRequest.of("x").withId("never")))
              .isInstanceOf(RedisUnavailableException.class));
      redis.restart();
      await().atMost(Duration.ofSeconds(5)).ignoreExceptions().until(() -> queue.get("never").isEmpty());
    }
  }

  @Test
  void producersAndWorkersResumeWithinAboutASecondOfRedisComingBack() throws InterruptedException {
    try (RedisServerProcess redis = RedisServerProcess.builder().start();
        Delayq delayq = Delayq.builder().redisUrl(redis.uri()).commandTimeout(Duration.ofSeconds(2)).build()) {
      JobQueue queue = delayq.queue("resume");
      AtomicLong ranAt = new AtomicLong();
      try (Workers workers = queue.startWorkers(job -> ranAt.set(System.nanoTime()),
          WorkerOptions.builder().sweepInterval(Duration.ofMillis(200)).build())) {
        queue.schedule(JobRequest.of("x").withId("before"));
        await().atMost(Duration.ofSeconds(5)).until(() -> ranAt.get() != 0);
        redis.kill();
        // why: the outage itself, not a wait for a condition: 6 s is long enough for Lettuce's default
        // reconnect backoff, and the claim loop's, to have grown past several seconds had they no cap
        Thread.sleep(6_000);
        redis.restart();
        long back = System.nanoTime();
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20)).ignoreExceptions()
            .until(() -> queue.schedule(JobRequest.of("x").withId("after")) != null);
        long producerResumed = System.nanoTime() - back;
        ranAt.set(0);
        await().atMost(Duration.ofSeconds(5)).until(() -> ranAt.get() != 0);
        assertThat(Duration.ofNanos(producerResumed)).isLessThan(Duration.ofMillis(1_500));
        assertThat(Duration.ofNanos(ranAt.get() - back)).isLessThan(Duration.ofMillis(2_500));
      }
    }
  }

  static void pause(RedisServerProcess redis, long millis) {
    RedisClient raw = RedisClient.create(redis.uri());
    try (StatefulRedisConnection<String, String> c = raw.connect()) {
      c.sync().clientPause(millis);
    } finally {
      raw.shutdown();
    }
  }
}
