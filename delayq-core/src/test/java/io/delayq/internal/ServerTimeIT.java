package io.delayq.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.Delayq;
import io.delayq.JobQueue;
import io.delayq.JobRequest;
import io.delayq.LeasedJob;
import io.delayq.WorkerOptions;
import io.delayq.Workers;
import io.delayq.embedded.RedisServerProcess;
import io.delayq.testing.TestRedis;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * Scripts take "now" from the server: from TIME inside the script where the server allows it, or
 * from a TIME read just before the call where it does not (a Redis 6 with
 * {@code lua-replicate-commands no} refuses writes after TIME). Either way no job is early.
 */
class ServerTimeIT {

  @Test
  void aServerThatAllowsTimeInScriptsIsUsedAsIs() {
    DelayqClient client = new DelayqClient(settings(TestRedis.url()));
    try {
      assertThat(client.serverTime().isPassed()).isFalse();
    } finally {
      client.close();
    }
  }

  @Test
  void aServerThatRefusesTimeInScriptsGetsItPassedInAndNoJobIsEarly() {
    try (RedisServerProcess redis =
        RedisServerProcess.builder()
            .binary(RedisServerProcess.bundledBinary())
            .setting("lua-replicate-commands", "no")
            .start()) {
      DelayqClient client = new DelayqClient(settings(redis.uri()));
      try {
        assertThat(client.serverTime().isPassed()).isTrue();
      } finally {
        client.close();
      }
      try (Delayq delayq = Delayq.connect(redis.uri())) {
        JobQueue queue = delayq.queue("passed-time", 2);
        Map<String, Instant> claimedAt = new ConcurrentHashMap<>();
        Map<String, Instant> dueAt = new ConcurrentHashMap<>();
        Duration lease = Duration.ofSeconds(30);
        try (Workers workers = queue.startWorkers(job -> {
              // The lease began at the claim, by the server's clock.
              claimedAt.put(job.id(), job.leaseUntil().minus(lease));
              dueAt.put(job.id(), job.runAt());
            }, WorkerOptions.builder().lease(lease).build())) {
          for (int i = 0; i < 20; i++) {
            queue.schedule(JobRequest.of("x").withId("t-" + i).withDelay(Duration.ofMillis(50L * i)));
          }
          await().atMost(Duration.ofSeconds(10)).until(() -> claimedAt.size() == 20);
        }
        claimedAt.forEach((id, at) -> assertThat(at).as(id + " claimed at").isAfterOrEqualTo(dueAt.get(id)));
        // The whole lifecycle works in this mode: pull, nack, dead letters, stats.
        queue.schedule(JobRequest.of("x").withId("pull").withMaxAttempts(1));
        List<LeasedJob> pulled = queue.pull().claim(1, Duration.ofSeconds(5));
        assertThat(pulled).hasSize(1);
        queue.pull().nack(pulled.get(0), null, "no");
        assertThat(queue.admin().stats().dead()).isEqualTo(1);
      }
    }
  }

  static ClientSettings settings(String url) {
    return new ClientSettings(url, 1 << 20, Duration.ofSeconds(5), 1000, Duration.ofDays(1), false, 0, Duration.ZERO,
        Duration.ofMinutes(5));
  }
}
