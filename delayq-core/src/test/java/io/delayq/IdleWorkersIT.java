package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.embedded.RedisServerProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * No busy polling: idle workers on an empty queue look at Redis once per sweep interval, and a
 * scheduled job still wakes them at once. Counted on a Redis of the test's own, so nothing else
 * adds commands.
 */
class IdleWorkersIT {

  @Test
  void idleWorkersSendOneClaimPerSweepAndWakeOnNotification() {
    try (RedisServerProcess redis = RedisServerProcess.builder().start();
        Delayq delayq = Delayq.connect(redis.uri())) {
      RedisClient admin = RedisClient.create(redis.uri());
      try (StatefulRedisConnection<String, String> stats = admin.connect()) {
        JobQueue queue = delayq.queue("idle");
        AtomicInteger handled = new AtomicInteger();
        try (Workers workers = queue.startWorkers(job -> handled.incrementAndGet(),
            WorkerOptions.builder().concurrency(8).build())) {
          await().atMost(Duration.ofSeconds(5)).until(() -> scriptCalls(stats) >= 1);
          long before = scriptCalls(stats);
          long t0 = System.nanoTime();
          // A measuring window: the workers stay up and idle throughout it.
          await().during(Duration.ofSeconds(4)).atMost(Duration.ofSeconds(6)).until(workers::isRunning);
          double seconds = (System.nanoTime() - t0) / 1e9;
          long calls = scriptCalls(stats) - before;
          // One claim per second with the default one-second sweep; far from a polling loop.
          assertThat(calls / seconds).isLessThanOrEqualTo(2.0);

          ScheduledJob job = queue.schedule(JobRequest.of("x").withDelay(Duration.ofMillis(100)));
          await().atMost(Duration.ofSeconds(2)).until(() -> handled.get() == 1);
          assertThat(queue.get(job.id())).isEmpty();
        }
      } finally {
        admin.shutdown();
      }
    }
  }

  private static long scriptCalls(StatefulRedisConnection<String, String> stats) {
    String info = stats.sync().info("commandstats");
    for (String line : info.split("\r?\n")) {
      if (line.startsWith("cmdstat_evalsha:")) {
        return Long.parseLong(line.replaceAll(".*calls=(\\d+).*", "$1"));
      }
    }
    return 0;
  }
}
