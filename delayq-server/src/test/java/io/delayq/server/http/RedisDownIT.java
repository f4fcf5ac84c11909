package io.delayq.server.http;

import static io.delayq.server.http.HttpApiIT.assertError;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.server.testing.ApiClient;
import io.delayq.server.testing.ApiClient.Reply;
import io.delayq.server.testing.ServerProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** When Redis is gone: /health says so with 503, calls are 503 redis_unavailable, and SIGTERM still stops cleanly. */
class RedisDownIT {
  private static final Pattern REDIS_PID = Pattern.compile("embedded Redis ready: pid (\\d+)");

  @TempDir Path dataDir;

  @Test
  void healthAndCallsAnswer503WhileRedisIsDown() throws Exception {
    try (ServerProcess server = ServerProcess.startEmbedded(dataDir)) {
      ApiClient api = new ApiClient(server.baseUrl());
      assertThat(api.get("/health").status()).isEqualTo(200);
      assertThat(api.post("/v1/queues/q/jobs", Map.of("payload", "x")).status()).isEqualTo(201);

      long redisPid = server.output().stream()
          .map(REDIS_PID::matcher).filter(Matcher::find).mapToLong(m -> Long.parseLong(m.group(1)))
          .findFirst().orElseThrow(() -> new AssertionError("no Redis pid in " + server.output()));
      // The embedded redis-server is a child of the server this test started: crash it by its pid.
      ProcessHandle redis = ProcessHandle.of(redisPid).orElseThrow();
      assertThat(redis.parent().map(ProcessHandle::pid)).contains(server.pid());
      redis.destroyForcibly();
      redis.onExit().get();

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

      assertThat(server.terminate(Duration.ofSeconds(15))).as(String.join("\n", server.output())).isZero();
      assertThat(server.output())
          .anyMatch(line -> line.contains("the embedded Redis (pid " + redisPid + ") exited on its own"))
          .anyMatch(line -> line.contains("the embedded Redis had already exited"))
          .anyMatch(line -> line.contains("shutdown: done"));
    }
  }
}
