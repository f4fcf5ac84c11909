package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.testing.TestRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What a health check reads from a queue and from Redis: the oldest unclaimed due job and its
 * age by the Redis clock, each master's PING and memory figures, and the queues with workers.
 */
class QueueStatsIT {
  private static Delayq delayq;
  private static RedisClient raw;
  private static StatefulRedisConnection<String, String> rawConnection;

  @BeforeAll
  static void connect() {
    delayq = Delayq.connect(TestRedis.url());
    raw = RedisClient.create(TestRedis.url());
    rawConnection = raw.connect();
  }

  @AfterAll
  static void close() {
    delayq.close();
    rawConnection.close();
    raw.shutdown();
  }

  private static long redisNowMillis() {
    List<String> time = rawConnection.sync().time();
    return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
  }

  @Test
  void aQueueWithNothingDueHasNoOldestDueJob() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("stats-none"), 4);
    assertThat(queue.admin().stats().oldestDueAt()).isNull();
    queue.schedule(JobRequest.of("later").withDelay(Duration.ofHours(1)));

    QueueStats stats = queue.admin().stats();
    assertThat(stats.scheduled()).isEqualTo(1);
    assertThat(stats.oldestDueAt()).isNull();
    assertThat(stats.oldestDueAge()).isZero();
  }

  @Test
  void theOldestDueJobOverAllPartitionsIsReportedWithItsAgeByTheRedisClock() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("stats-oldest"), 4);
    ScheduledJob first = queue.schedule(JobRequest.of("a").withId("first").withDelay(Duration.ofMillis(200)));
    // Ids chosen to land on other partitions than "first" are not needed: the oldest wins anyway,
    // and with four partitions and ten ids several partitions hold a due job.
    for (int i = 0; i < 10; i++) {
      queue.schedule(JobRequest.of("b").withId("later-" + i).withDelay(Duration.ofMillis(400)));
    }
    queue.schedule(JobRequest.of("c").withId("not-due").withDelay(Duration.ofHours(1)));
    await().atMost(Duration.ofSeconds(5)).until(() -> queue.admin().stats().due() == 11);

    long before = redisNowMillis();
    QueueStats stats = queue.admin().stats();
    long after = redisNowMillis();

    assertThat(stats.oldestDueAt()).isEqualTo(first.runAt());
    assertThat(stats.oldestDueAge().toMillis())
        .isBetween(before - first.runAt().toEpochMilli(), after - first.runAt().toEpochMilli());
  }

  @Test
  void aClaimedJobIsNoLongerTheOldestDue() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("stats-claimed"));
    queue.schedule(JobRequest.of("a").withId("a"));
    await().atMost(Duration.ofSeconds(5)).until(() -> queue.admin().stats().oldestDueAt() != null);

    List<LeasedJob> claimed = queue.pull().claim(1, Duration.ofMinutes(1));
    assertThat(claimed).hasSize(1);

    assertThat(queue.admin().stats().oldestDueAt()).isNull();
  }

  @Test
  void redisStatusHasTheRoundTripAndTheMemoryFigures() {
    List<RedisStatus> statuses = delayq.redisStatus();

    assertThat(statuses).hasSize(1);
    RedisStatus status = statuses.get(0);
    String info = rawConnection.sync().info("memory");
    RedisURI uri = RedisURI.create(TestRedis.url());
    assertThat(status.address()).isEqualTo(uri.getHost() + ":" + uri.getPort());
    assertThat(status.roundTrip()).isPositive().isLessThan(Duration.ofSeconds(5));
    assertThat(status.usedMemory()).isPositive();
    assertThat(info).contains("maxmemory_policy:" + status.maxmemoryPolicy());
    assertThat(info).contains("maxmemory:" + status.maxMemory());
    assertThat(status.mayEvict()).isEqualTo(!status.maxmemoryPolicy().equals("noeviction"));
  }

  @Test
  void workerQueuesNamesTheQueuesWithRunningWorkers() {
    String name = TestRedis.uniqueQueue("stats-workers");
    JobQueue queue = delayq.queue(name);
    assertThat(delayq.workerQueues()).doesNotContain(name);

    Workers workers = queue.startWorkers(job -> {}, WorkerOptions.builder().build());
    assertThat(delayq.workerQueues()).contains(name);

    workers.close();
    await().atMost(Duration.ofSeconds(10)).until(() -> !delayq.workerQueues().contains(name));
  }

  @Test
  void statsBuiltWithoutTheOldestDueJobHaveNone() {
    QueueStats stats = new QueueStats("q", 1, 0, 0, 0, 0, 0, false);
    assertThat(stats.oldestDueAt()).isNull();
    assertThat(stats.oldestDueAge()).isZero();
    assertThat(new QueueStats("q", 1, 1, 1, 0, 0, 0, false, Instant.EPOCH, Duration.ofSeconds(3)).oldestDueAge())
        .hasSeconds(3);
  }
}
