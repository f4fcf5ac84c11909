package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.delayq.embedded.RedisServerProcess;
import io.delayq.embedded.TcpProxy;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * A path to Redis that silently stops forwarding (a dead NAT entry, a black-holing middlebox) is
 * noticed within seconds: calls fail with an unknown outcome instead of hanging, the dead links
 * are dropped, and the new connections carry producers and workers on.
 */
class DeadLinkIT {

  @Test
  void aBlackHoledLinkIsReplacedAndProducersAndWorkersCarryOn() {
    try (RedisServerProcess redis = RedisServerProcess.builder().start();
        TcpProxy proxy = new TcpProxy("127.0.0.1", redis.port()).start();
        Delayq delayq =
            Delayq.builder().redisUrl("redis://127.0.0.1:" + proxy.port()).commandTimeout(Duration.ofSeconds(1)).build()) {
      JobQueue queue = delayq.queue("black-hole");
      Set<String> ran = ConcurrentHashMap.newKeySet();
      try (Workers workers = queue.startWorkers(job -> ran.add(job.id()),
          WorkerOptions.builder().sweepInterval(Duration.ofMillis(200)).build())) {
        queue.schedule(JobRequest.of("x").withId("before"));
        await().atMost(Duration.ofSeconds(5)).until(() -> ran.contains("before"));

        proxy.blackHoleExisting();
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> queue.schedule(JobRequest.of("x").withId("into-the-hole")))
            .isInstanceOf(OutcomeUnknownException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(3));

        // Within the command timeout plus the watchdog's interval the links are replaced.
        await().atMost(Duration.ofSeconds(6)).pollInterval(Duration.ofMillis(100)).ignoreExceptions()
            .until(() -> queue.schedule(JobRequest.of("x").withId("after").withOnDuplicate(DuplicatePolicy.KEEP)) != null);
        await().atMost(Duration.ofSeconds(6)).until(() -> ran.contains("after"));
      }
    }
  }
}
