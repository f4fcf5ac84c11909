package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.delayq.embedded.RedisServerProcess;
import io.delayq.testing.TestRedis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A Redis of the test's own (the bundled redis-server 6.2, so this also proves delayq on 6.2) with
 * {@code appendonly yes} and {@code appendfsync always}, killed with SIGKILL while jobs are
 * scheduled and active, then restarted on the same port and data: every job is still delivered.
 */
class CrashRecoveryIT {

  @Test
  void everyJobIsDeliveredAfterRedisIsKilledAndRestarted() {
    try (RedisServerProcess redis =
            RedisServerProcess.builder().appendOnly(true).appendFsync("always").start();
        Delayq producer = Delayq.builder().redisUrl(redis.uri()).commandTimeout(Duration.ofSeconds(2)).build();
        Delayq consumer = Delayq.builder().redisUrl(redis.uri()).commandTimeout(Duration.ofSeconds(2)).build()) {
      String name = TestRedis.uniqueQueue("crash");
      JobQueue queue = producer.queue(name, 2);
      int jobs = 2_000;
      List<JobRequest> requests = new ArrayList<>();
      for (int i = 0; i < jobs; i++) {
        requests.add(JobRequest.of("x").withId("c" + i).withDelay(Duration.ofMillis(i * 2L)));
      }
      queue.scheduleAll(requests);

      Map<String, AtomicInteger> delivered = new ConcurrentHashMap<>();
      Set<String> heldAtCrash = ConcurrentHashMap.newKeySet();
      WorkerOptions options =
          WorkerOptions.builder().concurrency(4).lease(Duration.ofSeconds(2)).shutdownTimeout(Duration.ofSeconds(1)).build();
      try (Workers workers = consumer.queue(name).startWorkers(job -> {
            delivered.computeIfAbsent(job.id(), k -> new AtomicInteger()).incrementAndGet();
            Thread.sleep(2);
          }, options)) {
        // Kill Redis mid-run: some jobs done, some held by workers, most still scheduled.
        await().atMost(Duration.ofSeconds(10)).until(() -> delivered.size() >= 300);
        redis.kill();
        heldAtCrash.addAll(delivered.keySet());

        // Producers fail fast while Redis is away, rather than hanging.
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> queue.schedule(JobRequest.of("during outage")))
            .isInstanceOf(RedisUnavailableException.class)
            .hasMessageContaining(redis.uri().substring("redis://".length()));
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(3));

        redis.restart();
        // Workers reconnect by themselves and finish the rest, including the leases cut off by the crash.
        await().atMost(Duration.ofSeconds(60)).until(() -> delivered.size() == jobs);
        await().atMost(Duration.ofSeconds(30)).until(() -> {
          QueueStats s = queue.admin().stats();
          return s.scheduled() == 0 && s.active() == 0;
        });
      }
      assertThat(delivered).hasSize(jobs);
      assertThat(queue.admin().stats().dead()).isZero();
      // At-least-once: only jobs whose ack was cut off by the crash may have run twice.
      delivered.forEach((id, n) -> {
        if (n.get() > 1) {
          assertThat(heldAtCrash).contains(id);
        }
      });
      // Scheduling works again once Redis is back.
      assertThat(queue.schedule(JobRequest.of("after")).outcome()).isEqualTo(ScheduledJob.Outcome.CREATED);
    }
  }

  @Test
  void workersWaitOutARedisThatIsDownAtTheirStartAndLoseNothing() {
    try (RedisServerProcess redis = RedisServerProcess.builder().appendOnly(true).appendFsync("always").start();
        Delayq client = Delayq.builder().redisUrl(redis.uri()).commandTimeout(Duration.ofSeconds(2)).build()) {
      JobQueue queue = client.queue(TestRedis.uniqueQueue("outage"));
      queue.schedule(JobRequest.of("x").withId("before-outage").withDelay(Duration.ofMillis(500)));
      Map<String, AtomicInteger> delivered = new ConcurrentHashMap<>();
      redis.stop();
      try (Workers workers = queue.startWorkers(
          job -> delivered.computeIfAbsent(job.id(), k -> new AtomicInteger()).incrementAndGet(),
          WorkerOptions.defaults())) {
        // Nothing can be delivered while Redis is down, however long the workers keep trying.
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(delivered::isEmpty);
        assertThat(delivered).isEmpty();
        redis.restart();
        await().atMost(Duration.ofSeconds(20)).until(() -> delivered.containsKey("before-outage"));
      }
      assertThat(delivered.get("before-outage")).hasValue(1);
    }
  }
}
