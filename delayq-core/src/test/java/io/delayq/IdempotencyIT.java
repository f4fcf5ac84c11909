package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.testing.TestRedis;
import io.lettuce.core.RedisClient;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The idempotency window: ids of finished jobs scheduled with KEEP are remembered, so that a
 * retried KEEP schedule whose first try went through and already ran (or was cancelled) does not
 * run the job again. A retried REPLACE schedules the job again in any case, so REPLACE jobs leave
 * nothing behind.
 */
class IdempotencyIT {

  @Test
  void anAckedIdScheduledAgainWithKeepIsNotRunAgain() {
    try (Delayq delayq = Delayq.connect(TestRedis.url())) {
      JobQueue queue = delayq.queue(TestRedis.uniqueQueue("idem"));
      queue.schedule(JobRequest.of("x").withId("order-1").withOnDuplicate(DuplicatePolicy.KEEP));
      LeasedJob job = queue.pull().claim(1, Duration.ofSeconds(30)).get(0);
      queue.pull().ack(job);

      ScheduledJob retried = queue.schedule(JobRequest.of("x").withId("order-1").withOnDuplicate(DuplicatePolicy.KEEP));
      assertThat(retried.outcome()).isEqualTo(ScheduledJob.Outcome.KEPT);
      assertThat(retried.runAt()).isNull();
      assertThat(queue.get("order-1")).isEmpty();
      assertThat(queue.pull().claim(1, Duration.ofSeconds(30))).isEmpty();

      // Replace means "the newest schedule wins", so it schedules the job again.
      ScheduledJob replaced = queue.schedule(JobRequest.of("y").withId("order-1"));
      assertThat(replaced.outcome()).isEqualTo(ScheduledJob.Outcome.CREATED);
      assertThat(queue.get("order-1")).isPresent();
    }
  }

  @Test
  void aCancelledIdIsRememberedToo() {
    try (Delayq delayq = Delayq.connect(TestRedis.url())) {
      JobQueue queue = delayq.queue(TestRedis.uniqueQueue("idem-cancel"));
      queue.schedule(JobRequest.of("x").withId("c").withDelay(Duration.ofHours(1)).withOnDuplicate(DuplicatePolicy.KEEP));
      assertThat(queue.cancel("c")).isTrue();
      List<ScheduledJob> again =
          queue.scheduleAll(List.of(
              JobRequest.of("x").withId("c").withOnDuplicate(DuplicatePolicy.KEEP),
              JobRequest.of("x").withId("fresh").withOnDuplicate(DuplicatePolicy.KEEP)));
      assertThat(again).extracting(ScheduledJob::outcome)
          .containsExactly(ScheduledJob.Outcome.KEPT, ScheduledJob.Outcome.CREATED);
      assertThat(queue.get("c")).isEmpty();
    }
  }

  @Test
  void theWindowEndsAndCanBeTurnedOff() {
    try (Delayq brief = Delayq.builder().redisUrl(TestRedis.url()).idempotencyWindow(Duration.ofMillis(300)).build();
        Delayq off = Delayq.builder().redisUrl(TestRedis.url()).idempotencyWindow(Duration.ZERO).build()) {
      JobQueue queue = brief.queue(TestRedis.uniqueQueue("idem-window"));
      queue.schedule(JobRequest.of("x").withId("w").withOnDuplicate(DuplicatePolicy.KEEP));
      queue.pull().ack(queue.pull().claim(1, Duration.ofSeconds(30)).get(0));
      assertThat(queue.schedule(JobRequest.of("x").withId("w").withOnDuplicate(DuplicatePolicy.KEEP)).outcome())
          .isEqualTo(ScheduledJob.Outcome.KEPT);
      // Remembered for at least the window and at most twice it.
      await().atMost(Duration.ofSeconds(3)).until(() ->
          queue.schedule(JobRequest.of("x").withId("w").withOnDuplicate(DuplicatePolicy.KEEP)).outcome()
              == ScheduledJob.Outcome.CREATED);

      JobQueue forgetful = off.queue(TestRedis.uniqueQueue("idem-off"));
      forgetful.schedule(JobRequest.of("x").withId("o").withOnDuplicate(DuplicatePolicy.KEEP));
      forgetful.pull().ack(forgetful.pull().claim(1, Duration.ofSeconds(30)).get(0));
      assertThat(forgetful.schedule(JobRequest.of("x").withId("o").withOnDuplicate(DuplicatePolicy.KEEP)).outcome())
          .isEqualTo(ScheduledJob.Outcome.CREATED);
    }
  }

  @Test
  void aClientWithAShorterWindowDoesNotEraseTheIdsAnotherClientReliesOn() {
    String name = TestRedis.uniqueQueue("idem-clients");
    try (Delayq longWindow = Delayq.builder().redisUrl(TestRedis.url()).idempotencyWindow(Duration.ofHours(1)).build();
        Delayq shortWindow = Delayq.builder().redisUrl(TestRedis.url()).idempotencyWindow(Duration.ofMillis(100)).build()) {
      JobQueue producer = longWindow.queue(name);
      JobQueue other = shortWindow.queue(name);
      JobRequest order = JobRequest.of("charge card").withId("order-1").withOnDuplicate(DuplicatePolicy.KEEP);
      producer.schedule(order);
      producer.pull().ack(producer.pull().claim(1, Duration.ofSeconds(30)).get(0));
      long started = System.nanoTime();
      // The other client finishes unrelated jobs for several of its short windows.
      for (int i = 0; System.nanoTime() - started < Duration.ofMillis(600).toNanos(); i++) {
        other.schedule(JobRequest.of("x").withId("other-" + i));
        other.pull().ack(other.pull().claim(1, Duration.ofSeconds(30)).get(0));
      }
      assertThat(producer.schedule(order).outcome())
          .as("a KEEP retry within the 1 h window does not schedule the finished job again")
          .isEqualTo(ScheduledJob.Outcome.KEPT);
    }
  }

  @Test
  void jobsScheduledWithReplaceLeaveNoIdBehind() {
    String name = TestRedis.uniqueQueue("idem-replace");
    try (Delayq delayq = Delayq.connect(TestRedis.url())) {
      JobQueue queue = delayq.queue(name);
      queue.scheduleAll(List.of(JobRequest.of("x").withId("r1"), JobRequest.of("x").withId("r2").withDelay(Duration.ofHours(1))));
      queue.pull().ack(queue.pull().claim(1, Duration.ofSeconds(30)).get(0));
      assertThat(queue.cancel("r2")).isTrue();

      assertThat(rawKeys("{dq:" + name + ":0}:done:*")).as("finished REPLACE jobs are not remembered").isEmpty();
      assertThat(queue.schedule(JobRequest.of("x").withId("r1").withOnDuplicate(DuplicatePolicy.KEEP)).outcome())
          .isEqualTo(ScheduledJob.Outcome.CREATED);
    }
  }

  @Test
  void aKeepRequestForAJobThatExistsMakesItsIdRemembered() {
    try (Delayq delayq = Delayq.connect(TestRedis.url())) {
      JobQueue queue = delayq.queue(TestRedis.uniqueQueue("idem-mark"));
      JobRequest keepWaiting = JobRequest.of("x").withId("waiting").withOnDuplicate(DuplicatePolicy.KEEP);
      JobRequest keepHeld = JobRequest.of("x").withId("held").withOnDuplicate(DuplicatePolicy.KEEP);
      // Created by REPLACE; a KEEP request then finds each, one waiting and one held by a worker.
      queue.schedule(JobRequest.of("x").withId("held"));
      LeasedJob held = queue.pull().claim(1, Duration.ofSeconds(30)).get(0);
      queue.schedule(JobRequest.of("x").withId("waiting"));
      assertThat(queue.scheduleAll(List.of(keepWaiting, keepHeld))).extracting(ScheduledJob::outcome)
          .containsExactly(ScheduledJob.Outcome.KEPT, ScheduledJob.Outcome.KEPT);

      queue.pull().ack(held);
      queue.pull().ack(queue.pull().claim(1, Duration.ofSeconds(30)).get(0));
      assertThat(queue.scheduleAll(List.of(keepWaiting, keepHeld))).extracting(ScheduledJob::outcome)
          .as("retrying the KEEP requests after the jobs ran does not schedule them again")
          .containsExactly(ScheduledJob.Outcome.KEPT, ScheduledJob.Outcome.KEPT);
      assertThat(queue.admin().stats().scheduled()).isZero();
    }
  }

  @Test
  void aKeepRequestMarksAJobThatDelayq01Wrote() {
    String name = TestRedis.uniqueQueue("idem-v1");
    try (Delayq delayq = Delayq.connect(TestRedis.url())) {
      JobQueue queue = delayq.queue(name);
      RedisClient raw = RedisClient.create(TestRedis.url());
      try (var connection = raw.connect()) {
        connection.sync().hset("{dq:" + name + ":0}:jobs", "old", "1|5|1733000000123|k|payload");
        connection.sync().zadd("{dq:" + name + ":0}:scheduled", 0, "old");
      } finally {
        raw.shutdown();
      }
      JobRequest keep = JobRequest.of("x").withId("old").withOnDuplicate(DuplicatePolicy.KEEP);
      assertThat(queue.schedule(keep).outcome()).isEqualTo(ScheduledJob.Outcome.KEPT);
      JobInfo old = queue.get("old").orElseThrow();
      assertThat(old.payloadAsString()).isEqualTo("k|payload");
      assertThat(old.maxAttempts()).isEqualTo(5);

      queue.pull().ack(queue.pull().claim(1, Duration.ofSeconds(30)).get(0));
      assertThat(queue.schedule(keep).outcome()).isEqualTo(ScheduledJob.Outcome.KEPT);
    }
  }

  private static List<String> rawKeys(String pattern) {
    RedisClient raw = RedisClient.create(TestRedis.url());
    try (var connection = raw.connect()) {
      return TestRedis.keysMatching(connection, pattern);
    } finally {
      raw.shutdown();
    }
  }
}
