package io.delayq.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.server.testing.ApiClient;
import io.delayq.server.testing.ApiClient.Reply;
import io.delayq.server.testing.ServerProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One queue whose keys another program overwrote does not hide every other queue from the listing. */
class BrokenQueueIT {
  @TempDir Path dataDir;

  @Test
  void theListingShowsTheBrokenQueueWithItsErrorAndTheOthersAsUsual() throws Exception {
    try (ServerProcess server = ServerProcess.startEmbedded(dataDir)) {
      ApiClient api = new ApiClient(server.baseUrl());
      assertThat(api.post("/v1/queues/healthy/jobs", Map.of("payload", "x")).status()).isEqualTo(201);
      assertThat(api.post("/v1/queues/broken/jobs", Map.of("payload", "x")).status()).isEqualTo(201);
      RedisClient raw = RedisClient.create(server.redisUrl());
      try (StatefulRedisConnection<String, String> c = raw.connect()) {
        c.sync().del("{dq:broken:0}:scheduled");
        c.sync().set("{dq:broken:0}:scheduled", "written by another program");
      } finally {
        raw.shutdown();
      }
      Reply listing = api.get("/v1/queues");
      assertThat(listing.status()).as(listing.toString()).isEqualTo(200);
      Map<String, JsonNode> byName = new HashMap<>();
      listing.json().forEach(q -> byName.put(q.path("queue").asText(), q));
      assertThat(byName.get("healthy").path("scheduled").asLong()).isEqualTo(1);
      assertThat(byName.get("broken").path("error").asText()).contains("WRONGTYPE");
    }
  }
}
