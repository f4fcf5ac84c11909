package io.delayq.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.JobQueue;
import io.delayq.testing.TestRedis;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A long-running process that uses many queue names does not keep them all. */
class UnusedQueuesIT {

  @AfterEach
  void restoreLinger() {
    WakeBus.lingerMillis = 30_000;
  }

  @Test
  void queueHandlesAreBounded() {
    DelayqClient client = new DelayqClient(ServerTimeIT.settings(TestRedis.url()));
    try {
      String prefix = TestRedis.uniqueQueue("many");
      for (int i = 0; i < QueueRegistry.MAX_CACHED_QUEUES + 200; i++) {
        client.queue(prefix + "-" + i, 0);
      }
      assertThat(client.registry().cachedQueues()).isEqualTo(QueueRegistry.MAX_CACHED_QUEUES);
      // An evicted handle is simply made again, with the stored partition count.
      assertThat(client.queue(prefix + "-0", 0).partitions()).isEqualTo(1);
    } finally {
      client.close();
    }
  }

  @Test
  void wakeUpSubscriptionsOfQueuesNobodyWaitsOnAreDropped() {
    WakeBus.lingerMillis = 200;
    DelayqClient client = new DelayqClient(ServerTimeIT.settings(TestRedis.url()));
    try {
      String prefix = TestRedis.uniqueQueue("polls");
      for (int i = 0; i < 20; i++) {
        JobQueue queue = client.queue(prefix + "-" + i, 0);
        assertThat(queue.pull().claim(1, Duration.ofSeconds(5), Duration.ofMillis(50))).isEmpty();
      }
      // Each long poll subscribed; they linger briefly for the next poll, then go.
      await().atMost(Duration.ofSeconds(5)).until(() -> client.wakeBus().subscribedChannels() == 0);
    } finally {
      client.close();
    }
  }
}
