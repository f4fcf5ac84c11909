package io.delayq.attack;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayq.Delayq;
import io.delayq.HistoryBucket;
import io.delayq.JobQueue;
import io.delayq.JobRequest;
import io.delayq.embedded.RedisServerProcess;
import io.delayq.internal.Histories;
import io.delayq.internal.Keys;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Hostile and unlucky conditions for the history, each on a Redis of its own (they pause it or
 * poison the all-queues aggregate, which the shared Redis must not suffer).
 */
class HistoryAttackIT {
  private RedisServerProcess server;
  private RedisClient raw;
  private StatefulRedisConnection<String, String> redis;
  private Delayq delayq;

  @BeforeEach
  void start() {
    server = RedisServerProcess.builder().start();
    raw = RedisClient.create(server.uri());
    redis = raw.connect();
    // why: a flush interval far longer than the test, so only the flushes the test makes happen
    delayq = Delayq.builder().redisUrl(server.uri()).historyFlushInterval(Duration.ofMinutes(1))
        .commandTimeout(Duration.ofMillis(300)).build();
  }

  @AfterEach
  void stop() {
    delayq.close();
    redis.close();
    raw.shutdown();
    server.close();
  }

  private static long scheduled(List<HistoryBucket> buckets) {
    return buckets.stream().mapToLong(HistoryBucket::scheduled).sum();
  }

  private long redisMillis() {
    List<String> time = redis.sync().time();
    return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
  }

  /**
   * A flush whose scripts Redis runs after the client stopped waiting (a slow or paused Redis, a
   * reply lost to a dropped link) puts its counts back and sends them again: counted twice.
   */
  @Test
  void aFlushThatTimesOutWithUnknownOutcomeIsNotCountedTwice() {
    JobQueue queue = delayq.queue("paused-flush");
    queue.scheduleAll(List.of(JobRequest.of("x").withId("a"), JobRequest.of("x").withId("b")));
    // Every command of other clients waits 1.5 s; the flush waits 0.3 s for its replies.
    redis.sync().clientPause(1500);
    assertThat(Histories.flush(queue)).as("flush while Redis holds writes back").isFalse();
    // The paused scripts run once the pause ends; the retry then adds the same counts again.
    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).ignoreExceptions()
        .until(() -> Histories.flush(queue));
    assertThat(scheduled(queue.admin().historyByMinute(3))).as("queue's scheduled count").isEqualTo(2);
    assertThat(scheduled(delayq.historyByMinute(3))).as("all queues' scheduled count").isEqualTo(2);
  }

  /**
   * A field another program wrote into the all-queues hour bucket (not a number) makes every
   * history-add of that hour fail halfway: the minute bucket got its increments, the hour did not,
   * and the counts go back for the next flush, which adds them to the minute once more.
   */
  @Test
  void aForeignFieldInTheAggregateHourBucketNeitherInflatesTheMinuteNorJamsTheCounts() {
    long hour = Math.floorDiv(redisMillis(), Duration.ofHours(1).toMillis());
    for (long h = hour; h <= hour + 1; h++) {
      redis.sync().hset(Keys.allHistoryHour(h), "s", "written-by-someone-else");
    }
    JobQueue queue = delayq.queue("poisoned-aggregate");
    queue.scheduleAll(List.of(JobRequest.of("x").withId("a"), JobRequest.of("x").withId("b"),
        JobRequest.of("x").withId("c")));
    for (int i = 0; i < 4; i++) {
      Histories.flush(queue);
    }
    assertThat(scheduled(queue.admin().historyByMinute(3))).as("the queue's own buckets").isEqualTo(3);
    assertThat(scheduled(delayq.historyByMinute(3))).as("all queues by minute after four flushes").isEqualTo(3);
  }

  /**
   * The same on the queue's own hour bucket: a counter past what HINCRBY can add to (another
   * program's, or a very long-lived one) fails every later flush of that queue and hour.
   */
  @Test
  void aQueueHourCounterThatOverflowsDoesNotMakeItsMinuteCountGrowWithEveryFlush() {
    String name = "overflowing-hour";
    long hour = Math.floorDiv(redisMillis(), Duration.ofHours(1).toMillis());
    for (long h = hour; h <= hour + 1; h++) {
      redis.sync().hset(Keys.historyHour(name, h), "s", Long.toString(Long.MAX_VALUE));
    }
    JobQueue queue = delayq.queue(name);
    queue.schedule(JobRequest.of("x").withId("a"));
    for (int i = 0; i < 5; i++) {
      Histories.flush(queue);
    }
    assertThat(scheduled(queue.admin().historyByMinute(3))).as("queue's minutes after five flushes").isEqualTo(1);
  }
}
