package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.testing.TestRedis;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Dead jobs past their retention go in the normal sweep, not only when another job is buried. */
class RetentionIT {

  @Test
  void deadJobsPastTheirAgeAreTrimmedWithoutFurtherBurials() {
    try (Delayq delayq =
        Delayq.builder().redisUrl(TestRedis.url()).deadLetterRetention(Duration.ofMillis(500)).build()) {
      JobQueue queue = delayq.queue(TestRedis.uniqueQueue("retention"));
      for (int i = 0; i < 3; i++) {
        queue.schedule(JobRequest.of("x").withId("d-" + i).withMaxAttempts(1));
      }
      for (LeasedJob job : queue.pull().claim(3, Duration.ofSeconds(30))) {
        assertThat(queue.pull().nack(job, null, "broken")).isEqualTo(JobState.DEAD);
      }
      assertThat(queue.admin().stats().dead()).isEqualTo(3);
      // An idle worker sweeps the partition about once a second; nothing else is buried.
      try (Workers idle = queue.startWorkers(job -> {}, WorkerOptions.builder().sweepInterval(Duration.ofMillis(200)).build())) {
        await().atMost(Duration.ofSeconds(5)).until(() -> queue.admin().stats().dead() == 0);
      }
      assertThat(queue.get("d-0")).isEmpty();
    }
  }
}
