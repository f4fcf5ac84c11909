package io.delayq.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.Delayq;
import io.delayq.Forwarder;
import io.delayq.ForwarderStatus;
import io.delayq.JobQueue;
import io.delayq.JobRequest;
import io.delayq.ListForwarding;
import io.delayq.QueueStats;
import io.delayq.embedded.RedisClusterProcesses;
import io.delayq.testing.TestRedis;
import io.lettuce.core.KeyValue;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Forwarding to a list on a real Redis Cluster (three masters, started for this class): two-step
 * when the list is in another slot than a partition, atomic when it is in the partition's slot.
 */
class ListForwardingClusterIT {
  private static RedisClusterProcesses cluster;
  private static Delayq delayq;
  private static RedisClusterClient raw;
  private static StatefulRedisClusterConnection<String, String> connection;
  private static RedisAdvancedClusterCommands<String, String> redis;

  @BeforeAll
  static void startCluster() {
    cluster = RedisClusterProcesses.builder().replicasPerMaster(0).start();
    delayq = Delayq.connect(cluster.seedUrl());
    raw = RedisClusterClient.create(cluster.seedUrl());
    connection = raw.connect();
    redis = connection.sync();
  }

  @AfterAll
  static void stopCluster() {
    if (connection != null) {
      connection.close();
    }
    if (raw != null) {
      raw.shutdown();
    }
    if (delayq != null) {
      delayq.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @AfterEach
  void clearHook() {
    ListForwarder.afterPushHook = null;
  }

  /** A list name in none of the queue's partitions' slots. */
  private static String listOutside(JobQueue queue) {
    while (true) {
      String name = "execute_queue-" + UUID.randomUUID();
      int slot = RedisClusterProcesses.slot(name);
      boolean clash = false;
      for (int p = 0; p < queue.partitions(); p++) {
        clash |= RedisClusterProcesses.slot(Keys.partitionTag(queue.name(), p)) == slot;
      }
      if (!clash) {
        return name;
      }
    }
  }

  private static Map<String, Integer> schedule(JobQueue queue, String prefix, int total) {
    List<JobRequest> requests = new ArrayList<>(total);
    for (int i = 0; i < total; i++) {
      requests.add(JobRequest.of(prefix + i).withId(prefix + i).withDelay(Duration.ofMillis(i % 1_500)));
    }
    queue.scheduleAll(requests);
    return new ConcurrentHashMap<>();
  }

  /** Pops with BRPOP until stopped, counting each payload. */
  private static Thread consume(String list, Map<String, Integer> seen, AtomicBoolean stop) {
    Thread t = new Thread(() -> {
      try (StatefulRedisClusterConnection<String, String> c = raw.connect()) {
        while (!stop.get()) {
          KeyValue<String, String> popped = c.sync().brpop(1, list);
          if (popped != null) {
            seen.merge(popped.getValue(), 1, Integer::sum);
          }
        }
      }
    }, "test-consumer");
    t.start();
    return t;
  }

  @Test
  void aListInAnotherSlotGetsEveryJobByLeasePushAndAckWithoutDuplicatesWhenNothingDies() throws Exception {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("cl-two-step"), 8);
    String list = listOutside(queue);
    int total = 3_000;
    Map<String, Integer> seen = schedule(queue, "t", total);
    AtomicBoolean stop = new AtomicBoolean();
    Thread consumer = consume(list, seen, stop);
    try (Forwarder forwarder = queue.forwardToList(ListForwarding.toList(list).build())) {
      assertThat(forwarder.target()).isEqualTo("redis-list:" + list + " (two-step, raw)");
      for (int p = 0; p < 8; p++) {
        assertThat(((ListForwarder) forwarder).isAtomic(p)).isFalse();
      }
      await().atMost(Duration.ofSeconds(60)).until(() -> seen.size() == total);
      await().atMost(Duration.ofSeconds(5)).until(() -> forwarder.status().forwarded() == total);
      assertThat(forwarder.status().state()).isEqualTo(ForwarderStatus.State.RUNNING);
      assertThat(forwarder.status().inFlight()).isZero();
    } finally {
      stop.set(true);
      consumer.join();
    }
    assertThat(seen.values()).allSatisfy(n -> assertThat(n).isEqualTo(1));
    assertEmpty(queue);
  }

  /**
   * The first forwarder stops dead right after one push, before its ack (its thread is held in
   * the hook, as a process that froze or died there). A second forwarder takes over: the jobs of
   * that push arrive twice once their lease ends, every other job exactly once. When the first
   * one wakes up, its ack is refused (the jobs belong to another delivery) and nothing more is
   * pushed twice.
   */
  @Test
  void aForwarderThatDiesBetweenPushAndAckCostsExactlyThatPushOneDuplicate() throws Exception {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("cl-kill"), 4);
    String list = listOutside(queue);
    int total = 2_000;
    Map<String, Integer> seen = schedule(queue, "k", total);
    List<String> frozen = new CopyOnWriteArrayList<>();
    CountDownLatch pushedOnce = new CountDownLatch(1);
    CountDownLatch thaw = new CountDownLatch(1);
    AtomicBoolean froze = new AtomicBoolean();
    ListForwarder.afterPushHook = ids -> {
      if (froze.compareAndSet(false, true)) {
        frozen.addAll(ids);
        pushedOnce.countDown();
        try {
          thaw.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    };
    AtomicBoolean stop = new AtomicBoolean();
    Thread consumer = consume(list, seen, stop);
    ListForwarding options = ListForwarding.toList(list).lease(Duration.ofSeconds(2)).batch(50).build();
    Forwarder first = queue.forwardToList(options);
    try (Delayq other = Delayq.connect(cluster.seedUrl())) {
      assertThat(pushedOnce.await(30, TimeUnit.SECONDS)).isTrue();
      assertThat(frozen).isNotEmpty();
      try (Forwarder second = other.queue(queue.name()).forwardToList(options)) {
        await().atMost(Duration.ofSeconds(60)).until(() -> seen.size() == total
            && frozen.stream().allMatch(id -> seen.getOrDefault(id, 0) == 2));
        assertEmpty(queue);
        thaw.countDown();
        first.close();
        assertThat(first.status().forwarded()).as("the frozen forwarder's late ack is refused").isZero();
        // Nothing else arrives twice, however long one waits.
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5))
            .until(() -> seen.values().stream().mapToInt(Integer::intValue).sum() == total + frozen.size());
        assertThat(second.status().forwarded()).isEqualTo(total);
      }
    } finally {
      thaw.countDown();
      first.close();
      stop.set(true);
      consumer.join();
    }
    for (var entry : seen.entrySet()) {
      assertThat(entry.getValue()).as(entry.getKey()).isEqualTo(frozen.contains(entry.getKey()) ? 2 : 1);
    }
  }

  @Test
  void aListInThePartitionsSlotIsMovedAtomically() throws Exception {
    JobQueue single = delayq.queue(TestRedis.uniqueQueue("cl-atomic"), 1);
    String list = Keys.partitionTag(single.name(), 0) + ":ready";
    int total = 1_000;
    Map<String, Integer> seen = schedule(single, "a", total);
    AtomicBoolean stop = new AtomicBoolean();
    Thread consumer = consume(list, seen, stop);
    try (Forwarder forwarder = single.forwardToList(ListForwarding.toList(list).build())) {
      assertThat(forwarder.target()).isEqualTo("redis-list:" + list + " (atomic, raw)");
      assertThat(((ListForwarder) forwarder).isAtomic(0)).isTrue();
      await().atMost(Duration.ofSeconds(30)).until(() -> seen.size() == total);
      assertThat(forwarder.status().forwarded()).isEqualTo(total);
    } finally {
      stop.set(true);
      consumer.join();
    }
    assertThat(seen.values()).allSatisfy(n -> assertThat(n).isEqualTo(1));
    assertEmpty(single);
  }

  @Test
  void aQueueWhoseListSharesOnePartitionsSlotMovesThatOneAtomicallyAndTheOthersInTwoSteps() throws Exception {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("cl-mixed"), 4);
    String list = Keys.partitionTag(queue.name(), 2) + ":ready";
    int total = 1_000;
    Map<String, Integer> seen = schedule(queue, "m", total);
    AtomicBoolean stop = new AtomicBoolean();
    Thread consumer = consume(list, seen, stop);
    try (Forwarder forwarder = queue.forwardToList(ListForwarding.toList(list).build())) {
      assertThat(forwarder.target()).contains("atomic on 1 of 4 partitions");
      for (int p = 0; p < 4; p++) {
        assertThat(((ListForwarder) forwarder).isAtomic(p)).as("partition %s", p).isEqualTo(p == 2);
      }
      await().atMost(Duration.ofSeconds(30)).until(() -> seen.size() == total);
    } finally {
      stop.set(true);
      consumer.join();
    }
    assertThat(seen.values()).allSatisfy(n -> assertThat(n).isEqualTo(1));
    assertEmpty(queue);
  }

  @Test
  void twoStepAgainstAKeyOfAnotherTypeHandsEveryJobBackAndRecoversOnceItIsFixed() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("cl-wrongtype"), 4);
    String list = listOutside(queue);
    redis.sadd(list, "a set, not a list");
    for (int i = 0; i < 40; i++) {
      queue.schedule(JobRequest.of("w" + i).withId("w" + i));
    }
    try (Forwarder forwarder = queue.forwardToList(ListForwarding.toList(list).build())) {
      await().atMost(Duration.ofSeconds(5)).until(() -> forwarder.status().state() == ForwarderStatus.State.MISCONFIGURED);
      assertThat(forwarder.status().lastError()).contains(list).contains("not a list");
      await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(4)).until(() -> {
        QueueStats s = queue.admin().stats();
        return s.scheduled() + s.active() == 40 && s.dead() == 0
            && forwarder.status().state() == ForwarderStatus.State.MISCONFIGURED;
      });
      assertThat(forwarder.status().retried()).isGreaterThanOrEqualTo(40);
      redis.del(list);
      await().atMost(Duration.ofSeconds(15)).until(() -> redis.llen(list) == 40);
      assertThat(Set.copyOf(redis.lrange(list, 0, -1))).hasSize(40);
      await().atMost(Duration.ofSeconds(2)).until(() -> forwarder.status().state() == ForwarderStatus.State.RUNNING);
    }
    assertEmpty(queue);
  }

  private static void assertEmpty(JobQueue queue) {
    await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
      QueueStats s = queue.admin().stats();
      assertThat(s.scheduled()).isZero();
      assertThat(s.active()).isZero();
      assertThat(s.dead()).isZero();
    });
  }
}
