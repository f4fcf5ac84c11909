package io.delayq.server.http;

import static io.delayq.server.http.HttpApiIT.assertError;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.server.testing.ApiClient;
import io.delayq.server.testing.ApiClient.Reply;
import io.delayq.server.testing.ServerProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A call that reached Redis and got no answer is a 504 {@code outcome_unknown}, not a 503: the
 * client must not take it for "nothing happened". The server runs on its own embedded Redis, which
 * the test pauses ({@code CLIENT PAUSE}) for longer than the server waits for an answer.
 */
class OutcomeUnknownIT {
  /** Longer than the core's command timeout (10 s), so the server gives up before Redis answers. */
  private static final Duration PAUSE = Duration.ofSeconds(12);

  @TempDir Path dataDir;

  @Test
  void aScheduleRedisDoesNotAnswerIsA504AndARetryWithKeepSchedulesTheJobOnce() throws Exception {
    try (ServerProcess server = ServerProcess.startEmbedded(dataDir)) {
      ApiClient api = new ApiClient(server.baseUrl());
      String jobs = "/v1/queues/q/jobs";
      // the queue and its defaults exist, so the schedule below is one script call and nothing else
      assertThat(api.put("/v1/queues/q", Map.of("maxAttempts", 3)).status()).isEqualTo(200);
      Map<String, Object> job = Map.of("id", "maybe", "payload", "x", "delayMs", 600_000, "maxAttempts", 3,
          "onDuplicate", "keep");

      RedisClient redis = RedisClient.create(server.redisUrl());
      try {
        try (StatefulRedisConnection<String, String> connection = redis.connect()) {
          assertThat(connection.sync().clientPause(PAUSE.toMillis())).isEqualTo("OK");
        }
        Reply unknown = api.post(jobs, job);
        assertError(unknown, 504, "outcome_unknown", null);
        assertThat(unknown.header("Retry-After")).isNull();
        assertThat(unknown.json().path("detail").asText())
            .contains("may have taken effect")
            .contains("A schedule sent with \"onDuplicate\":\"keep\" may be sent again as it was within the idempotency window");
      } finally {
        redis.shutdown();
      }

      // Once Redis answers again, the retry the detail recommends leaves exactly one job, whether or
      // not the first call went through.
      await().atMost(Duration.ofSeconds(30)).until(() -> api.get("/health").status() == 200);
      Reply retried = await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
          .until(() -> api.post(jobs, job), reply -> reply.status() == 201);
      assertThat(retried.json().path("outcome").asText()).isIn("created", "kept");
      assertThat(api.get(jobs + "/maybe").json().path("state").asText()).isEqualTo("scheduled");
      assertThat(api.get("/v1/queues/q").json().path("scheduled").asLong()).isEqualTo(1);
      assertThat(server.terminate(Duration.ofSeconds(15))).as(String.join("\n", server.output())).isZero();
    }
  }
}
