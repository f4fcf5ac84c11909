package io.delayq.server.http;

import static io.delayq.server.http.HttpApiIT.assertError;
import static org.assertj.core.api.Assertions.assertThat;

import io.delayq.server.testing.ApiClient;
import io.delayq.server.testing.ApiClient.Reply;
import io.delayq.server.testing.ServerProcess;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A server with a token, listening on every address (allowed because it has one): every call but
 * {@code /health} needs {@code Authorization: Bearer <token>}.
 */
class AuthIT {
  private static final String TOKEN = "it-token-" + UUID.randomUUID();
  private static ServerProcess server;
  private static ApiClient anonymous;
  private static ApiClient authorized;

  @BeforeAll
  static void start() throws Exception {
    server = ServerProcess.start("--bind", "0.0.0.0", "--token", TOKEN);
    assertThat(server.baseUrl()).startsWith("http://0.0.0.0:");
    // Listening on every address, it answers on loopback too; the tests send nothing elsewhere.
    String loopback = server.baseUrl().replace("0.0.0.0", "127.0.0.1");
    anonymous = new ApiClient(loopback);
    authorized = new ApiClient(loopback, TOKEN);
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void callsWithoutTheTokenAre401WithAChallenge() {
    for (Reply reply : new Reply[] {
        anonymous.get("/v1/queues"),
        anonymous.post("/v1/queues/q/jobs", Map.of("payload", "x")),
        anonymous.get("/metrics"),
        anonymous.get("/openapi.json"),
        anonymous.get("/v1/no-such-route"),
        anonymous.get("/v1/queues/q1/jobs/%C0%AF"),
        anonymous.get("/v1/queues/q/schedules"),
        anonymous.get("/v1/queues/q/schedules/s"),
        anonymous.put("/v1/queues/q/schedules/s", Map.of("every", "PT1M")),
        anonymous.delete("/v1/queues/q/schedules/s"),
        anonymous.post("/v1/queues/q/schedules/s/pause"),
        anonymous.post("/v1/queues/q/schedules/s/resume"),
        anonymous.withToken("wrong").post("/v1/queues/q/schedules/s/run"),
        anonymous.withToken("wrong").get("/v1/queues"),
        anonymous.withToken(TOKEN + "x").get("/v1/queues"),
        anonymous.withToken("").get("/v1/queues")}) {
      assertError(reply, 401, "unauthorized", null);
      assertThat(reply.header("WWW-Authenticate")).startsWith("Bearer");
    }
    Reply basic = anonymous.send("GET", "/v1/queues", null, null);
    assertThat(basic.status()).isEqualTo(401);
  }

  @Test
  void healthIsOpen() {
    Reply health = anonymous.get("/health");
    assertThat(health.status()).isEqualTo(200);
    assertThat(health.json().path("status").asText()).isEqualTo("up");
    assertError(anonymous.delete("/health"), 405, "method_not_allowed", null);
  }

  @Test
  void everythingWorksWithTheToken() {
    String queue = "it-auth-" + UUID.randomUUID().toString().substring(0, 8);
    Reply created = authorized.post("/v1/queues/" + queue + "/jobs", Map.of("id", "a", "payload", "x"));
    assertThat(created.status()).isEqualTo(201);
    assertThat(authorized.get("/v1/queues/" + queue + "/jobs/a").status()).isEqualTo(200);
    assertThat(authorized.post("/v1/queues/" + queue + "/claim").json()).hasSize(1);
    String schedule = "/v1/queues/" + queue + "/schedules/nightly";
    assertThat(authorized.put(schedule, Map.of("cron", "@daily")).status()).isEqualTo(201);
    assertThat(authorized.get("/v1/queues/" + queue + "/schedules").json().path("schedules")).hasSize(1);
    assertThat(authorized.post(schedule + "/pause").status()).isEqualTo(200);
    assertThat(authorized.post(schedule + "/resume").status()).isEqualTo(200);
    assertThat(authorized.post(schedule + "/run").status()).isEqualTo(201);
    assertThat(authorized.delete(schedule).status()).isEqualTo(204);
    assertThat(authorized.get("/metrics").status()).isEqualTo(200);
    assertThat(authorized.get("/openapi.json").status()).isEqualTo(200);
    assertError(authorized.get("/v1/no-such-route"), 404, "not_found", null);
  }

  @Test
  void theTokenNeverAppearsInTheLog() {
    anonymous.withToken("wrong").get("/v1/queues");
    assertThat(String.join("\n", server.output())).doesNotContain(TOKEN).contains("bearer token required");
  }
}
