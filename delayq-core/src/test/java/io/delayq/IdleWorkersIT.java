package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.embedded.RedisServerProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * No busy polling: idle workers on an empty queue send Redis about one command a second per
 * partition, plus a PING a second per connection and the wake-up probe, and a scheduled job still
 * wakes them at once; one whose wake-up message is lost is found by the next sweep. Counted by
 * {@code INFO commandstats}, which also counts the commands a script runs inside, on a Redis of
 * each test's own, so nothing else adds commands.
 */
class IdleWorkersIT {
  private static final int PARTITIONS = 16;
  /** A Delayq's connections that the link watchdog PINGs: producer, worker and wake-up. */
  private static final int CONNECTIONS = 3;

  @Test
  void idleWorkersSendAboutOneCommandASecondPerPartitionAndWakeOnNotification() {
    try (RedisServerProcess redis = RedisServerProcess.builder().start();
        Delayq delayq = Delayq.connect(redis.uri());
        Stats stats = new Stats(redis)) {
      JobQueue queue = delayq.queue("idle", PARTITIONS);
      Map<String, Instant> startedAt = new ConcurrentHashMap<>();
      try (Workers workers = queue.startWorkers(job -> startedAt.put(job.id(), Instant.now()),
          WorkerOptions.builder().concurrency(8).build())) {
        // Every partition has been claimed once: the workers are up and have found the queue empty.
        await().atMost(Duration.ofSeconds(5)).until(() -> stats.calls().getOrDefault("evalsha", 0L) >= PARTITIONS);
        Map<String, Long> before = stats.calls();
        long t0 = System.nanoTime();
        // A measuring window: the workers stay up and idle throughout it.
        await().during(Duration.ofSeconds(5)).atMost(Duration.ofSeconds(7)).until(workers::isRunning);
        double seconds = (System.nanoTime() - t0) / 1e9;
        Map<String, Long> after = stats.calls();
        Function<String, Double> perSecond = command ->
            (after.getOrDefault(command, 0L) - before.getOrDefault(command, 0L)) / seconds;
        double all = after.keySet().stream().filter(c -> !c.equals("info")).mapToDouble(perSecond::apply).sum();
        double sweeps = all - perSecond.apply("ping") - perSecond.apply("publish");
        // The sweep: one command per partition each second (the default sweep interval), not the
        // claim script with the commands it runs inside, and not one per worker thread.
        assertThat(sweeps / PARTITIONS).as("sweep commands/s per partition; all: %s", after)
            .isBetween(0.7, 1.25);
        assertThat(perSecond.apply("ping")).as("PINGs/s").isLessThanOrEqualTo(CONNECTIONS + 0.5);
        assertThat(perSecond.apply("publish")).as("wake-up probes/s").isLessThanOrEqualTo(1.5);

        ScheduledJob job = queue.schedule(JobRequest.of("x").withId("soon").withDelay(Duration.ofMillis(300)));
        await().atMost(Duration.ofSeconds(2)).until(() -> startedAt.containsKey("soon"));
        // Woken by the wake-up message and the due time, not by a sweep.
        assertThat(Duration.between(job.runAt(), startedAt.get("soon"))).isLessThan(Duration.ofMillis(500));
        await().atMost(Duration.ofSeconds(2)).until(() -> queue.get(job.id()).isEmpty());
      }
    }
  }

  @Test
  void aJobWhoseWakeUpMessageIsLostIsFoundByTheNextSweep() {
    try (RedisServerProcess redis = redisWithoutWakeUpMessages();
        Delayq delayq = Delayq.connect(redis.uri());
        Stats stats = new Stats(redis)) {
      JobQueue queue = delayq.queue("lost-wake", 4);
      Map<String, Instant> startedAt = new ConcurrentHashMap<>();
      try (Workers workers = queue.startWorkers(job -> startedAt.put(job.id(), Instant.now()), WorkerOptions.defaults())) {
        // Every partition has been claimed and swept since: all of them are idle.
        await().atMost(Duration.ofSeconds(5)).until(() -> stats.calls().getOrDefault("exists", 0L) >= 4);
        assertThat(stats.connection.sync().pubsubChannels()).as("no wake-up subscription").isEmpty();
        for (int i = 0; i < 4; i++) {
          String id = "lost-" + i;
          ScheduledJob job = queue.schedule(JobRequest.of("x").withId(id));
          await().atMost(Duration.ofSeconds(5)).until(() -> startedAt.containsKey(id));
          // At most one sweep interval (1 s) late, plus the claim.
          assertThat(Duration.between(job.runAt(), startedAt.get(id))).isLessThan(Duration.ofMillis(1_500));
        }
      }
    }
  }

  @Test
  void deadJobsBuriedWhileWorkersIdleAreTrimmedAtTheirAge() {
    Duration retention = Duration.ofSeconds(1);
    try (RedisServerProcess redis = redisWithoutWakeUpMessages();
        Delayq workerSide = Delayq.builder().redisUrl(redis.uri()).deadLetterRetention(retention).build();
        Delayq otherSide = Delayq.builder().redisUrl(redis.uri()).deadLetterRetention(retention).build();
        Stats stats = new Stats(redis)) {
      AtomicInteger handled = new AtomicInteger();
      try (Workers workers = workerSide.queue("trim").startWorkers(job -> {
        handled.incrementAndGet();
        throw new IllegalStateException("broken");
      }, WorkerOptions.defaults())) {
        await().atMost(Duration.ofSeconds(5)).until(() -> stats.calls().getOrDefault("exists", 0L) >= 1);
        // Another process takes a job and buries it between two sweeps of the idle workers (which
        // get no wake-up message); should they see the job, they bury it themselves.
        JobQueue other = otherSide.queue("trim");
        other.schedule(JobRequest.of("x").withId("doomed").withMaxAttempts(1));
        for (LeasedJob job : other.pull().claim(1, Duration.ofSeconds(30))) {
          assertThat(other.pull().nack(job, null, "broken")).isEqualTo(JobState.DEAD);
        }
        await().atMost(Duration.ofSeconds(3)).until(() -> other.admin().stats().dead() == 1);
        Instant buried = Instant.now();
        // Trimmed by the first sweep after its retention, not only when something else happens.
        await().atMost(Duration.ofSeconds(4)).until(() -> other.admin().stats().dead() == 0);
        assertThat(Duration.between(buried, Instant.now())).isGreaterThanOrEqualTo(retention.minusMillis(100));
      }
    }
  }

  /** A Redis that refuses SUBSCRIBE: every wake-up message is lost, as when one goes missing. */
  private static RedisServerProcess redisWithoutWakeUpMessages() {
    return RedisServerProcess.builder().setting("rename-command", "SUBSCRIBE", "").start();
  }

  /** Calls per command from {@code INFO commandstats}, lower-case names ("evalsha", "ping", ...). */
  private static final class Stats implements AutoCloseable {
    final RedisClient client;
    final StatefulRedisConnection<String, String> connection;

    Stats(RedisServerProcess redis) {
      this.client = RedisClient.create(redis.uri());
      this.connection = client.connect();
    }

    Map<String, Long> calls() {
      Map<String, Long> calls = new HashMap<>();
      for (String line : connection.sync().info("commandstats").split("\r?\n")) {
        // cmdstat_evalsha:calls=3,usec=...,rejected_calls=0,failed_calls=0
        if (line.startsWith("cmdstat_")) {
          String command = line.substring("cmdstat_".length(), line.indexOf(':'));
          calls.put(command, Long.parseLong(line.replaceFirst("^[^:]*:calls=(\\d+),.*$", "$1")));
        }
      }
      return calls;
    }

    @Override
    public void close() {
      connection.close();
      client.shutdown();
    }
  }
}
