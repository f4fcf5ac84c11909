package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.testing.TestRedis;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The idempotency window: ids of finished jobs are remembered, so that a retried schedule whose
 * first try went through and already ran (or was cancelled) does not run the job again.
 */
class IdempotencyIT {

  @Test
  void anAckedIdScheduledAgainWithKeepIsNotRunAgain() {
    try (Delayq delayq = Delayq.connect(TestRedis.url())) {
      JobQueue queue = delayq.queue(TestRedis.uniqueQueue("idem"));
      queue.schedule(JobRequest.of("x").withId("order-1"));
      LeasedJob job = queue.pull().claim(1, Duration.ofSeconds(30)).get(0);
      queue.pull().ack(job);

      ScheduledJob retried = queue.schedule(JobRequest.of("x").withId("order-1").withOnDuplicate(DuplicatePolicy.KEEP));
      assertThat(retried.outcome()).isEqualTo(ScheduledJob.Outcome.KEPT);
      assertThat(retried.runAt()).isNull();
      assertThat(queue.get("order-1")).isEmpty();
      assertThat(queue.pull().claim(1, Duration.ofSeconds(30))).isEmpty();

      // Replace means "the newest schedule wins", so it schedules the job again.
      ScheduledJob replaced = queue.schedule(JobRequest.of("y").withId("order-1"));
      assertThat(replaced.outcome()).isEqualTo(ScheduledJob.Outcome.REPLACED);
      assertThat(queue.get("order-1")).isPresent();
    }
  }

  @Test
  void aCancelledIdIsRememberedToo() {
    try (Delayq delayq = Delayq.connect(TestRedis.url())) {
      JobQueue queue = delayq.queue(TestRedis.uniqueQueue("idem-cancel"));
      queue.schedule(JobRequest.of("x").withId("c").withDelay(Duration.ofHours(1)));
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
      queue.schedule(JobRequest.of("x").withId("w"));
      queue.pull().ack(queue.pull().claim(1, Duration.ofSeconds(30)).get(0));
      assertThat(queue.schedule(JobRequest.of("x").withId("w").withOnDuplicate(DuplicatePolicy.KEEP)).outcome())
          .isEqualTo(ScheduledJob.Outcome.KEPT);
      // Remembered for at least the window and at most twice it.
      await().atMost(Duration.ofSeconds(3)).until(() ->
          queue.schedule(JobRequest.of("x").withId("w").withOnDuplicate(DuplicatePolicy.KEEP)).outcome()
              == ScheduledJob.Outcome.CREATED);

      JobQueue forgetful = off.queue(TestRedis.uniqueQueue("idem-off"));
      forgetful.schedule(JobRequest.of("x").withId("o"));
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
}
