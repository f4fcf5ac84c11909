package io.delayq.server.http;

import static io.delayq.server.http.HttpApiIT.assertError;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.embedded.RedisServerProcess;
import io.delayq.server.testing.ApiClient;
import io.delayq.server.testing.ApiClient.Reply;
import io.delayq.server.testing.ServerProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * When the Redis it was given is gone: /health says so with 503, calls are 503 redis_unavailable,
 * SIGTERM still stops cleanly, and once Redis is back calls work again. (An embedded Redis that
 * dies is restarted by the server itself: {@code io.delayq.server.EmbeddedRedisSupervisionIT}.)
 */
class RedisDownIT {
  @TempDir Path dir;

  @Test
  void healthAndCallsAnswer503WhileRedisIsDownAndWorkAgainWhenItIsBack() throws Exception {
    try (RedisServerProcess redis = RedisServerProcess.builder().appendOnly(true).appendFsync("always")
            .dataDir(dir.resolve("redis")).start();
        ServerProcess server = ServerProcess.launch().startEmbedded(dir.resolve("data"), "--redis", redis.uri())) {
      ApiClient api = new ApiClient(server.baseUrl());
      assertThat(api.get("/health").status()).isEqualTo(200);
      assertThat(api.post("/v1/queues/q/jobs", Map.of("id", "before", "payload", "x", "delayMs", 3_600_000))
          .status()).isEqualTo(201);

      redis.kill();

      await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
        Reply health = api.get("/health");
        assertThat(health.status()).isEqualTo(503);
        assertThat(health.json().path("status").asText()).isEqualTo("down");
        assertThat(health.json().path("redis").asText()).isEqualTo("down");
        assertThat(health.json().path("detail").asText()).isNotBlank();
      });
      Reply schedule = api.post("/v1/queues/q/jobs", Map.of("payload", "x"));
      assertError(schedule, 503, "redis_unavailable", null);
      assertThat(schedule.header("Retry-After")).isEqualTo("1");
      assertThat(api.get("/metrics").body()).contains("delayq_redis_up 0.0");

      redis.start();

      await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> assertThat(api.get("/health").status()).isEqualTo(200));
      assertThat(api.get("/v1/queues/q/jobs/before").status()).isEqualTo(200);
      assertThat(api.post("/v1/queues/q/jobs", Map.of("payload", "y")).status()).isEqualTo(201);

      redis.kill();
      assertThat(server.terminate(Duration.ofSeconds(15))).as(String.join("\n", server.output())).isZero();
      assertThat(server.output()).anyMatch(line -> line.contains("shutdown: done"));
    }
  }
}
