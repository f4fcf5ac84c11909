package io.delayq.attack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.Delayq;
import io.delayq.WorkerOptions;
import io.delayq.WorkerProcess;
import io.delayq.Workers;
import io.delayq.embedded.RedisServerProcess;
import io.delayq.internal.Keys;
import io.delayq.testing.TestRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Worker heartbeats against foreign data, closing races and pools that stop one at a time. */
class HeartbeatAttackIT {
  private static final Duration INTERVAL = Duration.ofMillis(100);

  private static WorkerOptions options(int concurrency) {
    return WorkerOptions.builder().concurrency(concurrency).shutdownTimeout(Duration.ofSeconds(5)).build();
  }

  private static Optional<WorkerProcess> listed(Delayq reader, Delayq client) {
    return reader.workerProcesses().stream().filter(p -> p.id().equals(client.processId())).findFirst();
  }

  /**
   * The process set written by another program as a string: the listing must not fail (a dashboard
   * page), and the workers' own heartbeats should still make them visible.
   */
  @Test
  void aLiveProcessSetOfAnotherTypeNeitherFailsTheListingNorHidesTheWorkers() {
    try (RedisServerProcess server = RedisServerProcess.builder().start();
        Delayq worker = Delayq.builder().redisUrl(server.uri()).heartbeatInterval(INTERVAL).build();
        Delayq reader = Delayq.connect(server.uri())) {
      RedisClient raw = RedisClient.create(server.uri());
      try (StatefulRedisConnection<String, String> redis = raw.connect()) {
        redis.sync().set(Keys.workersSeen(), "not a sorted set");
      } finally {
        raw.shutdown();
      }
      worker.queue("foreign-seen").startWorkers(job -> {}, options(1));
      await().atMost(Duration.ofSeconds(3)).untilAsserted(() -> assertThat(listed(reader, worker)).isPresent());
    }
  }

  /** Members and entries another program wrote (garbage fields, wrong types) are skipped, not fatal. */
  @Test
  void foreignMembersAndEntriesAreSkipped() {
    try (RedisServerProcess server = RedisServerProcess.builder().start();
        Delayq worker = Delayq.builder().redisUrl(server.uri()).heartbeatInterval(INTERVAL).build();
        Delayq reader = Delayq.connect(server.uri())) {
      RedisClient raw = RedisClient.create(server.uri());
      try (StatefulRedisConnection<String, String> redis = raw.connect()) {
        var r = redis.sync();
        r.zadd(Keys.workersSeen(), 9e15, "string-entry");
        r.set(Keys.workerProcess("string-entry"), "x");
        r.zadd(Keys.workersSeen(), 9e15, "garbage-entry");
        r.hset(Keys.workerProcess("garbage-entry"), java.util.Map.of("v", "1", "host", "h", "pid", "nope",
            "version", "x", "started", "-", "seen", "1", "q", ";;,"));
        r.zadd(Keys.workersSeen(), 9e15, "odd-queues");
        r.hset(Keys.workerProcess("odd-queues"), java.util.Map.of("v", "1", "host", "h", "pid", "1",
            "version", "x", "started", "1", "seen", "1", "q", "a,99999999999,1"));
        r.zadd(Keys.workersSeen(), 9e15, "no-entry");
      } finally {
        raw.shutdown();
      }
      worker.queue("foreign-entries").startWorkers(job -> {}, options(1));
      await().atMost(Duration.ofSeconds(3)).untilAsserted(() -> assertThat(reader.workerProcesses())
          .extracting(WorkerProcess::id).containsExactly(worker.processId()));
    }
  }

  /** close() racing a heartbeat in flight: the entry must not come back after close returned. */
  @Test
  void anEntryNeverReappearsAfterClose() {
    try (Delayq reader = Delayq.connect(TestRedis.url())) {
      for (int i = 0; i < 15; i++) {
        Delayq client = Delayq.builder().redisUrl(TestRedis.url()).heartbeatInterval(INTERVAL).build();
        client.queue(TestRedis.uniqueQueue("hb-close")).startWorkers(job -> {}, options(1));
        await().atMost(Duration.ofSeconds(3)).until(() -> listed(reader, client).isPresent());
        client.close();
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(1))
            .until(() -> listed(reader, client).isEmpty());
      }
    }
  }

  /** Stopping one of two pools updates the entry; stopping the last removes it at once. */
  @Test
  void stoppingOneOfTwoPoolsUpdatesTheEntry() {
    try (Delayq client = Delayq.builder().redisUrl(TestRedis.url()).heartbeatInterval(INTERVAL).build();
        Delayq reader = Delayq.connect(TestRedis.url())) {
      String a = TestRedis.uniqueQueue("hb-two-a");
      String b = TestRedis.uniqueQueue("hb-two-b");
      Workers first = client.queue(a).startWorkers(job -> {}, options(2));
      Workers second = client.queue(b).startWorkers(job -> {}, options(3));
      await().atMost(Duration.ofSeconds(3)).untilAsserted(() -> assertThat(listed(reader, client)).get()
          .extracting(WorkerProcess::queues).asList().hasSize(2));
      first.close();
      await().atMost(Duration.ofSeconds(3)).untilAsserted(() -> assertThat(listed(reader, client)).get()
          .satisfies(p -> assertThat(p.queues()).containsExactly(new WorkerProcess.QueueWork(b, 3, 0))));
      second.close();
      assertThat(listed(reader, client)).isEmpty();
    }
  }
}
