package io.delayq.server.http;

import static io.delayq.server.http.HttpApiIT.assertError;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.server.testing.ApiClient;
import io.delayq.server.testing.ApiClient.Reply;
import io.delayq.server.testing.SharedServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code POST /v1/queues/{queue}/settle}: many acks and nacks in one call, each answered in its place. */
class SettleIT {
  @RegisterExtension static final SharedServer server = new SharedServer();

  private ApiClient api;
  private String queue;

  @BeforeEach
  void setUp(TestInfo test) {
    api = server.api();
    queue = "settle-" + test.getTestMethod().orElseThrow().getName() + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  @Test
  void goodStaleAndInvalidElementsAreEachAnsweredInTheirPlaceAndTheGoodOnesSettled() {
    assertThat(api.put("/v1/queues/" + queue, Map.of("partitions", 4)).status()).isEqualTo(200);
    // "stale" is claimed with a short lease that runs out, then claimed again: its first token
    // names a delivery that is over, while the job is held by the second
    schedule("stale", 3);
    String staleToken = claim("stale", 100);
    await().atMost(Duration.ofSeconds(5)).until(() -> state("stale").equals("expired"));
    schedule("done-1", 3);
    schedule("done-2", 3);
    schedule("retry", 3);
    schedule("last", 1);
    Map<String, String> tokens = new HashMap<>();
    JsonNode claimed = api.post("/v1/queues/" + queue + "/claim?max=10&leaseMs=30000").json();
    claimed.forEach(job -> tokens.put(job.path("id").asText(), job.path("token").asText()));
    assertThat(tokens).containsOnlyKeys("done-1", "done-2", "retry", "last", "stale");
    assertThat(tokens.get("stale")).isNotEqualTo(staleToken);

    List<Object> body = new ArrayList<>();
    body.add(ack("done-1", tokens.get("done-1")));
    body.add(Map.of("id", "retry", "token", tokens.get("retry"), "outcome", "nack", "retryInMs", 3_600_000, "error", "flaky"));
    body.add(ack("stale", staleToken));
    body.add(Map.of("id", "last", "token", tokens.get("last"), "outcome", "nack"));
    body.add(Map.of("id", "no-token", "outcome", "ack"));
    body.add(ack("", "1000"));
    body.add(Map.of("id", "done-2", "token", tokens.get("done-2"), "outcome", "done"));
    body.add(42);
    body.add(Map.of("id", "x", "token", "1000", "outcome", "ack", "attempt", 1));
    body.add(ack("done-2", tokens.get("done-2")));
    Reply reply = api.post("/v1/queues/" + queue + "/settle", body);

    assertThat(reply.status()).as(reply.toString()).isEqualTo(200);
    JsonNode answers = reply.json();
    assertThat(answers).hasSize(body.size());
    assertSettled(answers.get(0), "done-1", null);
    assertSettled(answers.get(1), "retry", "scheduled");
    assertElementError(answers.get(2), "stale", 409, "conflict", null);
    assertThat(answers.get(2).path("detail").asText()).contains("token " + staleToken + " no longer holds the job");
    assertSettled(answers.get(3), "last", "dead");
    assertElementError(answers.get(4), "no-token", 400, "invalid_request", "[4].token");
    assertElementError(answers.get(5), "", 400, "invalid_request", "[5].id");
    assertElementError(answers.get(6), "done-2", 400, "invalid_request", "[6].outcome");
    assertElementError(answers.get(7), null, 400, "invalid_request", "[7]");
    assertElementError(answers.get(8), "x", 400, "invalid_request", "[8].attempt");
    assertSettled(answers.get(9), "done-2", null);

    // the answers match what the single calls give, and the good elements took effect
    Reply single = api.post("/v1/queues/" + queue + "/jobs/stale/ack", Map.of("token", staleToken));
    assertError(single, 409, "conflict", null);
    assertThat(answers.get(2).path("error").asText()).isEqualTo(single.json().path("error").asText());
    assertThat(api.get("/v1/queues/" + queue + "/jobs/done-1").status()).isEqualTo(404);
    assertThat(api.get("/v1/queues/" + queue + "/jobs/done-2").status()).isEqualTo(404);
    JsonNode retried = api.get("/v1/queues/" + queue + "/jobs/retry").json();
    assertThat(retried.path("state").asText()).isEqualTo("scheduled");
    assertThat(retried.path("lastError").asText()).isEqualTo("flaky");
    assertThat(state("last")).isEqualTo("dead");
    assertThat(state("stale")).as("the refused stale ack left the job with its current delivery").isEqualTo("active");
    assertThat(api.post("/v1/queues/" + queue + "/settle", List.of(ack("stale", tokens.get("stale")))).json().get(0)
        .path("status").asInt()).isEqualTo(204);
    assertThat(api.get("/v1/queues/" + queue + "/jobs/stale").status()).isEqualTo(404);
  }

  @Test
  void aWholeClaimIsSettledInOneCall() {
    List<Map<String, Object>> jobs = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      jobs.add(Map.of("id", "j" + i, "payload", "p" + i));
    }
    Reply scheduled = api.post("/v1/queues/" + queue + "/jobs:batch", jobs);
    assertThat(scheduled.status()).as(scheduled.toString()).isEqualTo(201);
    JsonNode claimed = api.post("/v1/queues/" + queue + "/claim?max=1000&leaseMs=30000").json();
    assertThat(claimed).hasSize(500);
    List<Object> body = new ArrayList<>();
    claimed.forEach(job -> body.add(ack(job.path("id").asText(), job.path("token").asText())));

    JsonNode answers = api.post("/v1/queues/" + queue + "/settle", body).json();

    assertThat(answers).hasSize(500);
    for (int i = 0; i < 500; i++) {
      assertSettled(answers.get(i), claimed.get(i).path("id").asText(), null);
    }
    JsonNode stats = api.get("/v1/queues/" + queue).json();
    assertThat(stats.path("active").asInt()).isZero();
    assertThat(stats.path("scheduled").asInt()).isZero();
  }

  @Test
  void aBodyThatIsNotAnArrayOfSettlementsOrAnUnknownQueueFailsTheWholeCall() {
    schedule("a", 3);
    String path = "/v1/queues/" + queue + "/settle";
    assertError(api.post(path, Map.of("id", "a")), 400, "invalid_request", "body");
    assertError(api.post(path, List.of()), 400, "invalid_request", "body");
    assertError(api.send("POST", path, "application/json", "[{".getBytes()), 400, "invalid_request", "body");
    List<Object> tooMany = new ArrayList<>();
    for (int i = 0; i < 1001; i++) {
      tooMany.add(ack("a", "1000"));
    }
    Reply large = api.post(path, tooMany);
    assertError(large, 400, "invalid_request", "body");
    assertThat(large.json().path("detail").asText()).contains("more than 1000 settlements");
    Reply unknown = api.post("/v1/queues/never-" + UUID.randomUUID() + "/settle", List.of(ack("a", "1000")));
    assertError(unknown, 404, "not_found", null);
    assertThat(state("a")).isEqualTo("scheduled");
  }

  private void schedule(String id, int maxAttempts) {
    Reply created = api.post("/v1/queues/" + queue + "/jobs", Map.of("id", id, "payload", id, "maxAttempts", maxAttempts));
    assertThat(created.status()).as(created.toString()).isEqualTo(201);
  }

  /** Claims the one job due now, which must be {@code id}, and returns its token. */
  private String claim(String id, long leaseMs) {
    JsonNode jobs = api.post("/v1/queues/" + queue + "/claim?max=1&leaseMs=" + leaseMs).json();
    assertThat(jobs).hasSize(1);
    assertThat(jobs.get(0).path("id").asText()).isEqualTo(id);
    return jobs.get(0).path("token").asText();
  }

  private String state(String id) {
    return api.get("/v1/queues/" + queue + "/jobs/" + id).json().path("state").asText();
  }

  private static Map<String, Object> ack(String id, String token) {
    Map<String, Object> element = new LinkedHashMap<>();
    element.put("id", id);
    element.put("token", token);
    element.put("outcome", "ack");
    return element;
  }

  private static void assertSettled(JsonNode answer, String id, String state) {
    assertThat(answer.path("id").asText()).as(answer.toString()).isEqualTo(id);
    assertThat(answer.path("status").asInt()).as(answer.toString()).isEqualTo(204);
    if (state == null) {
      assertThat(answer.has("state")).as(answer.toString()).isFalse();
    } else {
      assertThat(answer.path("state").asText()).as(answer.toString()).isEqualTo(state);
    }
    assertThat(answer.has("error")).as(answer.toString()).isFalse();
  }

  private static void assertElementError(JsonNode answer, String id, int status, String code, String field) {
    if (id == null) {
      assertThat(answer.path("id").isNull()).as(answer.toString()).isTrue();
    } else {
      assertThat(answer.path("id").asText()).as(answer.toString()).isEqualTo(id);
    }
    assertThat(answer.path("status").asInt()).as(answer.toString()).isEqualTo(status);
    assertThat(answer.path("error").asText()).as(answer.toString()).isEqualTo(code);
    assertThat(answer.path("detail").asText()).as(answer.toString()).isNotBlank();
    if (field == null) {
      assertThat(answer.has("field")).as(answer.toString()).isFalse();
    } else {
      assertThat(answer.path("field").asText()).as(answer.toString()).isEqualTo(field);
    }
  }
}
