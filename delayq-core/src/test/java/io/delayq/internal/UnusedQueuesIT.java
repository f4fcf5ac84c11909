package io.delayq.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.JobQueue;
import io.delayq.JobRequest;
import io.delayq.LeasedJob;
import io.delayq.WorkerOptions;
import io.delayq.Workers;
import io.delayq.testing.TestRedis;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
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
  void anEvictedHandleKeepsWorkingForWhoeverHoldsItAndTheNewOneSharesItsJobs() throws Exception {
    DelayqClient client = new DelayqClient(ServerTimeIT.settings(TestRedis.url()));
    try {
      String name = TestRedis.uniqueQueue("evicted");
      JobQueue original = client.queue(name, 4);
      Set<String> ran = ConcurrentHashMap.newKeySet();
      try (Workers workers = original.startWorkers(job -> ran.add(job.id()), WorkerOptions.builder().build())) {
        original.schedule(JobRequest.of("x").withId("before"));
        await().atMost(Duration.ofSeconds(10)).until(() -> ran.contains("before"));
        String prefix = TestRedis.uniqueQueue("evicting");
        for (int i = 0; i < QueueRegistry.MAX_CACHED_QUEUES + 10; i++) {
          client.queue(prefix + "-" + i, 0);
        }
        JobQueue again = client.queue(name, 0);
        assertThat(again).as("evicted, so made anew").isNotSameAs(original);
        assertThat(again.partitions()).isEqualTo(4);
        // the workers of the evicted handle run what the new handle schedules
        again.scheduleAll(List.of(JobRequest.of("x").withId("after-1"), JobRequest.of("x").withId("after-2")));
        await().atMost(Duration.ofSeconds(10)).until(() -> ran.containsAll(List.of("after-1", "after-2")));
      }
      // a delivery claimed through one handle is settled through the other
      JobQueue again = client.queue(name, 0);
      original.schedule(JobRequest.of("x").withId("pulled"));
      LeasedJob job = original.pull().claim(1, Duration.ofSeconds(30)).get(0);
      again.pull().ack(job);
      assertThat(original.get("pulled")).isEmpty();
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
