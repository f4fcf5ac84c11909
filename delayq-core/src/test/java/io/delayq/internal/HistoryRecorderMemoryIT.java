package io.delayq.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayq.Delayq;
import io.delayq.embedded.RedisServerProcess;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** What a client's history keeps in memory for queues it no longer touches. */
class HistoryRecorderMemoryIT {
  /**
   * A client that touches many queue names over its life (per-tenant queues, say) must not keep
   * something for each forever: the queue registry does not (see QueueRegistry), nor should the
   * history once a queue's counts are flushed and its minutes have gone idle.
   */
  @Test
  void queuesIdleForLongHoldNothingInMemory() throws Exception {
    try (RedisServerProcess server = RedisServerProcess.builder().start();
        Delayq delayq = Delayq.builder().redisUrl(server.uri()).historyFlushInterval(Duration.ofMinutes(1)).build()) {
      DelayqClient client = ((QueueHandle) delayq.queue("seed")).client();
      AtomicLong now = new AtomicLong(System.currentTimeMillis());
      try (HistoryRecorder recorder = new HistoryRecorder(client, new RedisClock(now::get), Duration.ofMinutes(1), true)) {
        for (int i = 0; i < 2000; i++) {
          recorder.queue("tenant-" + i).scheduled(1, 0, 0);
        }
        assertThat(recorder.flush()).isTrue();
        now.addAndGet(Duration.ofMinutes(10).toMillis());
        assertThat(recorder.flush()).isTrue();
        assertThat(recorder.flush()).isTrue();
        Field queues = HistoryRecorder.class.getDeclaredField("queues");
        queues.setAccessible(true);
        assertThat(((Map<?, ?>) queues.get(recorder)).size()).as("queues held after ten idle minutes").isZero();
      }
    }
  }
}
