package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.delayq.SortedSetAdoption.Mode;
import io.delayq.SortedSetAdoption.ScoreUnit;
import io.delayq.embedded.RedisClusterProcesses;
import io.delayq.testing.TestRedis;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Adoption on a real Redis Cluster of three masters: refused, with the reason, where the source and
 * the queue's keys are in different slots (one script cannot move a member between them
 * atomically); allowed where every key shares the source's slot.
 */
class SortedSetAdoptionClusterIT {
  private static RedisClusterProcesses cluster;
  private static Delayq delayq;
  private static RedisClusterClient client;
  private static StatefulRedisClusterConnection<String, String> connection;
  private static RedisAdvancedClusterCommands<String, String> redis;

  @BeforeAll
  static void startCluster() {
    cluster = RedisClusterProcesses.builder().masters(3).replicasPerMaster(0).start();
    delayq = Delayq.connect(cluster.seedUrl());
    client = RedisClusterClient.create(cluster.seedUrl());
    connection = client.connect();
    redis = connection.sync();
  }

  @AfterAll
  static void stopCluster() {
    if (connection != null) {
      connection.close();
      client.shutdown();
    }
    if (delayq != null) {
      delayq.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void aSourceInAnotherSlotIsRefusedWithTheReasonAndLeftAsItWas() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("adopt-cluster"), 4);
    String key = "delayed:" + queue.name();
    redis.zadd(key, 1_700_000_000, "a");
    redis.zadd(key, 1_700_000_001, "b");
    SortedSetAdoption options = SortedSetAdoption.from(key).scoreUnit(ScoreUnit.SECONDS).build();

    assertThatThrownBy(() -> queue.adopt(options))
        .isInstanceOf(QueueConfigurationException.class)
        .hasMessageContaining("slot " + RedisClusterProcesses.slot(key))
        .hasMessageContaining("one script cannot touch keys in two slots")
        .hasMessageContaining("nothing was moved")
        .hasMessageContaining("single Redis");
    assertThatThrownBy(() -> queue.importSortedSet(options)).isInstanceOf(QueueConfigurationException.class);
    assertThat(redis.zcard(key)).isEqualTo(2);
    assertThat(queue.admin().stats().scheduled()).isZero();

    // Tagged like partition 0, but partition 1 of a two-partition queue is in another slot.
    JobQueue two = delayq.queue(TestRedis.uniqueQueue("adopt-cluster-two"), 2);
    assertThatThrownBy(() -> two.importSortedSet(SortedSetAdoption.from("{dq:" + two.name() + ":0}:legacy").build()))
        .isInstanceOf(QueueConfigurationException.class)
        .hasMessageContaining("partition 1");
  }

  @Test
  void aSourceInTheSlotOfAOnePartitionQueueIsAdopted() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("adopt-cluster-slot"), 1);
    String key = "{dq:" + queue.name() + ":0}:legacy";
    long nowSeconds = System.currentTimeMillis() / 1000;
    for (int i = 0; i < 20; i++) {
      redis.zadd(key, nowSeconds - i, "member-" + i);
    }
    Set<String> delivered = ConcurrentHashMap.newKeySet();
    try (Workers workers = queue.startWorkers(job -> delivered.add(job.payloadAsString()), WorkerOptions.defaults());
        SortedSetBridge bridge = queue.adopt(SortedSetAdoption.from(key).moving(Mode.DUE)
            .pollInterval(Duration.ofMillis(100)).build())) {
      await().atMost(Duration.ofSeconds(20)).until(() -> delivered.size() == 20);
      assertThat(bridge.status().totals().moved()).isEqualTo(20);
      assertThat(bridge.status().totals().unit()).isEqualTo(ScoreUnit.SECONDS);
    }
    assertThat(redis.exists(key)).isZero();
  }
}
