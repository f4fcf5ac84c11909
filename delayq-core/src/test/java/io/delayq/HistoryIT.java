package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.delayq.embedded.RedisServerProcess;
import io.delayq.internal.Histories;
import io.delayq.internal.Keys;
import io.delayq.testing.TestRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The per-minute and per-hour history on a real Redis: what is counted, where, for how long. */
class HistoryIT {
  private static final Duration FLUSH = Duration.ofMillis(200);
  private final List<Delayq> clients = new ArrayList<>();
  private RedisClient raw;
  private StatefulRedisConnection<String, String> redis;

  @BeforeEach
  void connect() {
    raw = RedisClient.create(TestRedis.url());
    redis = raw.connect();
  }

  @AfterEach
  void close() {
    clients.forEach(Delayq::close);
    redis.close();
    raw.shutdown();
  }

  private Delayq client(String url) {
    Delayq delayq = Delayq.builder().redisUrl(url).historyFlushInterval(FLUSH).build();
    clients.add(delayq);
    return delayq;
  }

  /** The last few minutes summed: a test may straddle a minute boundary. */
  private static HistoryBucket recent(QueueAdmin admin) {
    return sum(admin.historyByMinute(5));
  }

  private static HistoryBucket sum(List<HistoryBucket> buckets) {
    long s = 0, d = 0, a = 0, r = 0, x = 0;
    Lateness late = Lateness.NONE;
    for (HistoryBucket b : buckets) {
      s += b.scheduled();
      d += b.delivered();
      a += b.acked();
      r += b.retried();
      x += b.dead();
      late = late.plus(b.lateness());
    }
    return new HistoryBucket(buckets.get(0).start(), Duration.ofMinutes(buckets.size()), s, d, a, r, x, late);
  }

  @Test
  void scheduledDeliveredAckedRetriedAndDeadAreCountedExactly() {
    Delayq delayq = client(TestRedis.url());
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("history"));
    PullConsumer pull = queue.pull();
    Instant past = Instant.now().minus(Duration.ofHours(1));
    // Two jobs whose leases will run out: one with attempts left, one on its last.
    queue.scheduleAll(List.of(JobRequest.of("x").withId("expires-dead").withRunAt(past).withMaxAttempts(1),
        JobRequest.of("x").withId("expires-retried").withRunAt(past.plusMillis(1))));
    assertThat(pull.claim(2, Duration.ofMillis(300))).hasSize(2);
    queue.scheduleAll(List.of(JobRequest.of("x").withId("a1"), JobRequest.of("x").withId("a2"),
        JobRequest.of("x").withId("a3"), JobRequest.of("x").withId("a4"),
        JobRequest.of("x").withId("last").withMaxAttempts(1)));
    queue.schedule(JobRequest.of("y").withId("a1")); // replaced: counts as scheduled
    queue.schedule(JobRequest.of("y").withId("a2").withOnDuplicate(DuplicatePolicy.KEEP)); // kept: does not
    List<LeasedJob> jobs = pull.claim(10, Duration.ofSeconds(30));
    assertThat(jobs).extracting(LeasedJob::id).containsExactlyInAnyOrder("a1", "a2", "a3", "a4", "last");
    for (LeasedJob job : jobs) {
      switch (job.id()) {
        case "a3" -> pull.nack(job, Duration.ofHours(1), "later");
        case "last" -> assertThat(pull.nack(job, Duration.ZERO, "gone")).isEqualTo(JobState.DEAD);
        default -> pull.ack(job);
      }
    }
    // A claim after the short leases ran out recovers both: one buried, one due again and delivered.
    List<LeasedJob> redelivered = new ArrayList<>();
    await().atMost(Duration.ofSeconds(5)).until(() -> redelivered.addAll(pull.claim(10, Duration.ofSeconds(30))));
    assertThat(redelivered).extracting(LeasedJob::id).containsExactly("expires-retried");

    await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
      HistoryBucket b = recent(queue.admin());
      assertThat(new long[] {b.scheduled(), b.delivered(), b.acked(), b.retried(), b.dead()})
          .as("scheduled, delivered, acked, retried, dead").containsExactly(8, 8, 3, 2, 2);
      assertThat(b.lateness().count()).isEqualTo(8);
    });
    HistoryBucket hour = sum(queue.admin().historyByHour(2));
    assertThat(hour.delivered()).isEqualTo(8);
    assertThat(hour.scheduled()).isEqualTo(8);
  }

  @Test
  void twoClientsAddIntoTheSameBucketsAndTheAggregateHoldsThemToo() {
    Delayq first = client(TestRedis.url());
    Delayq second = client(TestRedis.url());
    String name = TestRedis.uniqueQueue("history-two");
    long allBefore = sum(first.historyByMinute(3)).scheduled();
    for (int i = 0; i < 3; i++) {
      first.queue(name).schedule(JobRequest.of("x").withId("first-" + i));
      second.queue(name).schedule(JobRequest.of("x").withId("second-" + i));
    }
    second.queue(name).schedule(JobRequest.of("x").withId("second-3"));
    await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
        assertThat(recent(first.queue(name).admin()).scheduled()).isEqualTo(7));
    assertThat(recent(second.queue(name).admin()).scheduled()).isEqualTo(7);
    // Other tests share this Redis and its aggregate: it holds at least these.
    assertThat(sum(first.historyByMinute(5)).scheduled()).isGreaterThanOrEqualTo(allBefore + 7);
  }

  @Test
  void bucketsHaveTheirTimeToLiveOneKeyPerMinuteAndHourAndGoWithTheQueue() {
    Delayq delayq = client(TestRedis.url());
    String name = TestRedis.uniqueQueue("history-keys");
    JobQueue queue = delayq.queue(name);
    for (int i = 0; i < 50; i++) {
      queue.schedule(JobRequest.of("x").withId("j" + i));
      if (i % 10 == 0) {
        assertThat(Histories.flush(queue)).isTrue();
      }
    }
    assertThat(Histories.flush(queue)).isTrue();
    List<String> keys = TestRedis.keysMatching(redis, "{dq:" + name + "}:history:*");
    List<String> minuteKeys = keys.stream().filter(k -> k.contains("}:history:m:")).toList();
    List<String> hourKeys = keys.stream().filter(k -> k.contains("}:history:h:")).toList();
    // Six flushes within a minute or two: one key per minute and per hour, not one per flush.
    assertThat(minuteKeys).hasSizeBetween(1, 2);
    assertThat(hourKeys).hasSizeBetween(1, 2);
    assertThat(keys).hasSize(minuteKeys.size() + hourKeys.size());
    for (String key : minuteKeys) {
      assertThat(redis.sync().pttl(key)).isBetween(Duration.ofHours(24).toMillis(), Duration.ofMinutes(24 * 60 + 10).toMillis());
    }
    for (String key : hourKeys) {
      assertThat(redis.sync().pttl(key)).isBetween(Duration.ofDays(7).toMillis(), Duration.ofDays(7).plusHours(1).toMillis());
    }
    assertThat(recent(queue.admin()).scheduled()).isEqualTo(50);

    queue.admin().delete(true);
    assertThat(TestRedis.keysMatching(redis, "{dq:" + name + "}:history:*")).isEmpty();
  }

  @Test
  void lateDeliveriesLandInTheirLatenessBuckets() {
    Delayq delayq = client(TestRedis.url());
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("history-late"));
    Instant now = Instant.now();
    List<JobRequest> jobs = new ArrayList<>();
    for (int i = 0; i < 9; i++) {
      jobs.add(JobRequest.of("x").withId("three-seconds-" + i).withRunAt(now.minusSeconds(3)));
    }
    jobs.add(JobRequest.of("x").withId("forty-seconds").withRunAt(now.minusSeconds(40)));
    queue.scheduleAll(jobs);
    assertThat(queue.pull().claim(10, Duration.ofSeconds(30))).hasSize(10);
    assertThat(Histories.flush(queue)).isTrue();

    Lateness lateness = recent(queue.admin()).lateness();
    long[] counts = lateness.counts();
    int fiveSeconds = Lateness.BUCKET_BOUNDS.indexOf(Duration.ofSeconds(5));
    int oneMinute = Lateness.BUCKET_BOUNDS.indexOf(Duration.ofMinutes(1));
    assertThat(counts[fiveSeconds]).isEqualTo(9);
    assertThat(counts[oneMinute]).isEqualTo(1);
    assertThat(lateness.count()).isEqualTo(10);
    assertThat(lateness.percentile(0.5)).contains(Duration.ofSeconds(5));
    assertThat(lateness.percentile(0.9)).contains(Duration.ofSeconds(5));
    assertThat(lateness.percentile(0.95)).contains(Duration.ofMinutes(1));
  }

  @Test
  void aFlushWhileRedisIsAwayKeepsItsCountsForTheNextOne() {
    try (RedisServerProcess server = RedisServerProcess.builder().start()) {
      Delayq delayq = Delayq.builder().redisUrl(server.uri()).historyFlushInterval(Duration.ofMinutes(1))
          .commandTimeout(Duration.ofSeconds(1)).build();
      clients.add(delayq);
      JobQueue queue = delayq.queue("history-outage");
      queue.scheduleAll(List.of(JobRequest.of("x").withId("a"), JobRequest.of("x").withId("b")));
      server.stop();
      assertThat(Histories.flush(queue)).as("flush with Redis stopped").isFalse();
      server.restart();
      await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> Histories.flush(queue));
      // The restarted Redis has no data of its own (no persistence): what it holds came from the retry.
      assertThat(recent(queue.admin()).scheduled()).isEqualTo(2);
    }
  }

  @Test
  void outOfRangeArgumentsAreRefusedNamingTheRange() {
    Delayq delayq = client(TestRedis.url());
    QueueAdmin admin = delayq.queue(TestRedis.uniqueQueue("history-range")).admin();
    assertThatThrownBy(() -> admin.historyByMinute(0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("between 1 and 1440");
    assertThatThrownBy(() -> admin.historyByHour(169)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("between 1 and 168");
    assertThatThrownBy(() -> delayq.historyByMinute(1441)).isInstanceOf(IllegalArgumentException.class);
    List<HistoryBucket> empty = admin.historyByMinute(1440);
    assertThat(empty).hasSize(1440).allMatch(b -> b.scheduled() == 0 && b.lateness().count() == 0);
    for (int i = 1; i < empty.size(); i++) {
      assertThat(empty.get(i).start()).isEqualTo(empty.get(i - 1).start().plus(Duration.ofMinutes(1)));
    }
    assertThat(empty.get(1439).end()).isAfter(Instant.now().minusSeconds(5));
    assertThat(admin.historyByHour(168)).hasSize(168).allMatch(b -> b.width().equals(Duration.ofHours(1)));
  }
}
