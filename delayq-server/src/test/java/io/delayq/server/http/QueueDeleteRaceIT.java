package io.delayq.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayq.server.testing.ApiClient;
import io.delayq.server.testing.ApiClient.Reply;
import io.delayq.server.testing.SharedServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A forced delete racing producers leaves no job out of reach: each job a producer was told was
 * scheduled is either deleted with the queue or in the queue made anew, and a second delete leaves
 * no key of the queue behind.
 */
class QueueDeleteRaceIT {
  @RegisterExtension static final SharedServer server = new SharedServer();

  @Test
  void aForcedDeleteRacingProducersStrandsNoJobInAPartitionNobodyReads() throws Exception {
    ApiClient api = server.api();
    for (int round = 0; round < 4; round++) {
      String queue = "it-delete-race-" + UUID.randomUUID().toString().substring(0, 8);
      assertThat(api.put("/v1/queues/" + queue, Map.of("partitions", 4)).status()).isEqualTo(200);
      AtomicBoolean producing = new AtomicBoolean(true);
      ConcurrentLinkedQueue<String> scheduled = new ConcurrentLinkedQueue<>();
      List<CompletableFuture<Void>> producers = new ArrayList<>();
      for (int t = 0; t < 3; t++) {
        int thread = t;
        producers.add(CompletableFuture.runAsync(() -> {
          for (int i = 0; producing.get() || i < 20; i++) {
            String id = "p" + thread + "-" + i;
            if (api.post("/v1/queues/" + queue + "/jobs", Map.of("id", id, "payload", "x", "delayMs", 60_000)).status()
                == 201) {
              scheduled.add(id);
            }
          }
        }));
      }
      while (scheduled.size() < 30) {
        Thread.onSpinWait();
      }
      Reply deleted = api.delete("/v1/queues/" + queue + "?force=true");
      assertThat(deleted.status()).as(deleted.toString()).isEqualTo(200);
      producing.set(false);
      CompletableFuture.allOf(producers.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);

      // every job a producer was told about is findable, or was deleted with the queue
      long findable = scheduled.stream()
          .filter(id -> api.get("/v1/queues/" + queue + "/jobs/" + id).status() == 200).count();
      Reply stats = api.get("/v1/queues/" + queue);
      long counted = stats.status() == 200 ? stats.json().path("scheduled").asLong() : 0;
      assertThat(counted).as("round %d: jobs in the queue's stats", round).isEqualTo(findable);

      // and a second delete leaves nothing of the queue in Redis
      if (stats.status() == 200) {
        assertThat(api.delete("/v1/queues/" + queue + "?force=true").status()).isEqualTo(200);
      }
      // (but the short-lived mark that keeps other clients' late history flushes out: it expires by itself)
      assertThat(keysOf(queue)).as("round %d: keys left in Redis", round)
          .allMatch(key -> key.equals(io.delayq.internal.Keys.historyDeleted(queue)));
    }
  }

  private static List<String> keysOf(String queue) {
    RedisClient client = RedisClient.create(server.process().redisUrl());
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      return connection.sync().keys("*" + queue + "*");
    } finally {
      client.shutdown();
    }
  }
}
