package io.delayq.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.Delayq;
import io.delayq.server.testing.ApiClient;
import io.delayq.server.testing.ApiClient.Reply;
import io.delayq.server.testing.SharedServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Every endpoint of the API against the real jar: its success status and body, and its refusals. */
class HttpApiIT {
  @RegisterExtension static final SharedServer server = new SharedServer();

  private ApiClient api;
  private String queue;

  @BeforeEach
  void setUp(TestInfo test) {
    api = server.api();
    queue = "it-" + test.getTestMethod().orElseThrow().getName() + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  private String jobs() {
    return "/v1/queues/" + queue + "/jobs";
  }

  private Reply schedule(Object body) {
    return api.post(jobs(), body);
  }

  // ---- producers ----

  @Test
  void schedulesAJobAndReadsItBack() {
    long before = Instant.now().toEpochMilli();
    Reply created = schedule(Map.of("id", "order-1", "payload", "{\"order\":1}", "delayMs", 60_000, "maxAttempts", 3));

    assertThat(created.status()).as(created.toString()).isEqualTo(201);
    JsonNode body = created.json();
    assertThat(body.path("id").asText()).isEqualTo("order-1");
    assertThat(body.path("outcome").asText()).isEqualTo("created");
    assertThat(body.path("runAt").asLong()).isBetween(before + 60_000, Instant.now().toEpochMilli() + 60_000);
    assertThat(created.header("Location")).isEqualTo(jobs() + "/order-1");
    assertThat(created.header("Content-Type")).isEqualTo("application/json; charset=utf-8");

    Reply got = api.get(created.header("Location"));
    long after = Instant.now().toEpochMilli();
    assertThat(got.status()).isEqualTo(200);
    JsonNode job = got.json();
    assertThat(job.path("id").asText()).isEqualTo("order-1");
    assertThat(job.path("state").asText()).isEqualTo("scheduled");
    assertThat(job.path("runAt").asLong()).isEqualTo(body.path("runAt").asLong());
    assertThat(job.path("attempts").asInt()).isZero();
    assertThat(job.path("maxAttempts").asInt()).isEqualTo(3);
    assertThat(job.path("createdAt").asLong()).isBetween(before, after);
    assertThat(job.path("payload").asText()).isEqualTo("{\"order\":1}");
    assertThat(job.has("leaseUntil")).isFalse();
    assertThat(job.has("lastError")).isFalse();
  }

  @Test
  void aQueuesPartitionCountIsSetByItsFirstUseAndAnotherIsRefused() {
    assertThat(api.put("/v1/queues/" + queue, Map.of("partitions", 2)).status()).isEqualTo(200);
    assertThat(api.get("/v1/queues/" + queue).json().path("partitions").asInt()).isEqualTo(2);
    Reply refused = api.put("/v1/queues/" + queue, Map.of("partitions", 6));
    assertError(refused, 409, "conflict", null);
    assertThat(refused.json().path("detail").asText())
        .contains("has 2 partition(s); 6 were asked for")
        .contains("create a queue with a new name and 6 partitions");
    assertThat(api.get("/v1/queues/" + queue).json().path("partitions").asInt()).isEqualTo(2);
  }

  @Test
  void aClaimOfManyLargeJobsStopsNearSixteenMebibytesAndLeavesTheRestForTheNextClaim() {
    String large = "a".repeat(1_000_000);
    for (int i = 0; i < 20; i++) {
      assertThat(schedule(Map.of("id", "large-" + i, "payload", large)).status()).isEqualTo(201);
    }
    Reply first = api.post("/v1/queues/" + queue + "/claim?max=1000&leaseMs=30000");
    assertThat(first.status()).isEqualTo(200);
    int taken = first.json().size();
    assertThat(taken).isBetween(16, 17);
    Reply rest = api.post("/v1/queues/" + queue + "/claim?max=1000&leaseMs=30000");
    assertThat(rest.json().size()).isEqualTo(20 - taken);
  }

  @Test
  void generatesIdsAcceptsIsoTimesAndKeepsOrReplacesDuplicates() {
    Reply generated = schedule(Map.of("payload", "x", "runAt", "2099-01-01T00:00:00Z"));
    assertThat(generated.status()).isEqualTo(201);
    assertThat(generated.json().path("id").asText()).isNotEmpty();
    assertThat(generated.json().path("runAt").asLong()).isEqualTo(Instant.parse("2099-01-01T00:00:00Z").toEpochMilli());

    assertThat(schedule(Map.of("id", "d", "payload", "first", "delayMs", 60_000)).json().path("outcome").asText()).isEqualTo("created");
    Reply kept = schedule(Map.of("id", "d", "payload", "second", "onDuplicate", "keep"));
    assertThat(kept.status()).isEqualTo(201);
    assertThat(kept.json().path("outcome").asText()).isEqualTo("kept");
    assertThat(api.get(jobs() + "/d").json().path("payload").asText()).isEqualTo("first");
    Reply replaced = schedule(Map.of("id", "d", "payload", "third", "onDuplicate", "replace"));
    assertThat(replaced.json().path("outcome").asText()).isEqualTo("replaced");
    assertThat(api.get(jobs() + "/d").json().path("payload").asText()).isEqualTo("third");
  }

  @Test
  void binaryPayloadsTravelAsBase64() {
    byte[] bytes = {0, (byte) 0xff, (byte) 0xfe, 10};
    String encoded = Base64.getEncoder().encodeToString(bytes);
    assertThat(schedule(Map.of("id", "bin", "payloadBase64", encoded, "delayMs", 60_000)).status()).isEqualTo(201);
    JsonNode job = api.get(jobs() + "/bin").json();
    assertThat(job.has("payload")).isFalse();
    assertThat(job.path("payloadBase64").asText()).isEqualTo(encoded);
    // text sent as base64 comes back as text
    schedule(Map.of("id", "txt", "payloadBase64", Base64.getEncoder().encodeToString("héllo".getBytes(StandardCharsets.UTF_8))));
    assertThat(api.get(jobs() + "/txt").json().path("payload").asText()).isEqualTo("héllo");
  }

  @Test
  void idsWithSlashesSpacesAndPlusSignsRoundTripThroughTheUrl() {
    String id = "tenant/42 order+1 é";
    Reply created = schedule(Map.of("id", id, "payload", "x", "delayMs", 60_000));
    assertThat(created.header("Location")).isEqualTo(jobs() + "/tenant%2F42%20order%2B1%20%C3%A9");
    Reply got = api.get(created.header("Location"));
    assertThat(got.status()).as(got.toString()).isEqualTo(200);
    assertThat(got.json().path("id").asText()).isEqualTo(id);
    assertThat(api.get(jobs() + "/tenant%2F42%20order+1%20%C3%A9").status()).isEqualTo(200);
    assertThat(api.delete(created.header("Location")).status()).isEqualTo(204);
  }

  @Test
  void schedulesABatchInOrder() {
    List<Map<String, Object>> batch = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      batch.add(Map.of("id", "b" + i, "payload", "p" + i, "delayMs", 60_000 + i));
    }
    Reply created = api.post(jobs() + ":batch", batch);
    assertThat(created.status()).as(created.toString()).isEqualTo(201);
    JsonNode answers = created.json();
    assertThat(answers).hasSize(50);
    for (int i = 0; i < 50; i++) {
      assertThat(answers.get(i).path("id").asText()).isEqualTo("b" + i);
      assertThat(answers.get(i).path("outcome").asText()).isEqualTo("created");
    }
    assertThat(api.get("/v1/queues/" + queue).json().path("scheduled").asLong()).isEqualTo(50);
  }

  @Test
  void aBadBatchElementWritesNothing() {
    Reply refused = api.post(jobs() + ":batch", List.of(
        Map.of("id", "ok-1", "payload", "x"),
        Map.of("id", "bad", "payload", "x", "delayMs", -1),
        Map.of("id", "ok-2", "payload", "x")));
    assertError(refused, 400, "invalid_request", "[1].delayMs");
    assertThat(refused.json().path("detail").asText()).isEqualTo("[1].delayMs: must be between 0 and 31536000000000; got -1");
    assertThat(api.get(jobs() + "/ok-1").status()).isEqualTo(404);
    assertThat(api.get("/v1/queues/" + queue).status()).as("the queue was not even created").isEqualTo(404);

    assertError(api.post(jobs() + ":batch", List.of()), 400, "invalid_request", "body");
    assertError(api.post(jobs() + ":batch", Map.of("payload", "x")), 400, "invalid_request", "body");
  }

  @Test
  void aBatchThatHitsAJobAWorkerHoldsSaysWhatWentInSoARetryDuplicatesNothing() {
    schedule(Map.of("id", "busy", "payload", "x"));
    assertThat(api.post("/v1/queues/" + queue + "/claim?leaseMs=30000").json()).hasSize(1);
    Reply partly = api.post(jobs() + ":batch", List.of(
        Map.of("id", "fresh-1", "payload", "x", "delayMs", 60_000),
        Map.of("id", "busy", "payload", "y"),
        Map.of("payload", "no id given", "delayMs", 60_000)));
    assertError(partly, 409, "conflict", null);
    JsonNode results = partly.json().path("results");
    assertThat(results).hasSize(3);
    assertThat(results.get(0).path("id").asText()).isEqualTo("fresh-1");
    assertThat(results.get(0).path("outcome").asText()).isEqualTo("created");
    assertThat(results.get(1).path("id").asText()).isEqualTo("busy");
    assertThat(results.get(1).path("outcome").asText()).isEqualTo("refused_active");
    String generated = results.get(2).path("id").asText();
    assertThat(results.get(2).path("outcome").asText()).isEqualTo("created");
    assertThat(api.get(jobs() + "/" + generated).json().path("payload").asText()).isEqualTo("no id given");
    assertThat(api.get(jobs() + "/busy").json().path("state").asText()).isEqualTo("active");
    assertThat(api.get("/v1/queues/" + queue).json().path("scheduled").asLong()).isEqualTo(2);
  }

  @Test
  void cancelsAScheduledJob() {
    schedule(Map.of("id", "c", "payload", "x", "delayMs", 60_000));
    assertThat(api.delete(jobs() + "/c").status()).isEqualTo(204);
    assertError(api.get(jobs() + "/c"), 404, "not_found", null);
    assertError(api.delete(jobs() + "/c"), 404, "not_found", null);
  }

  @Test
  void reschedulesByDelayOrTime() {
    schedule(Map.of("id", "r", "payload", "x", "delayMs", 60_000));
    long before = Instant.now().toEpochMilli();
    Reply moved = api.patch(jobs() + "/r", Map.of("delayMs", 120_000));
    assertThat(moved.status()).as(moved.toString()).isEqualTo(200);
    assertThat(moved.json().path("id").asText()).isEqualTo("r");
    assertThat(moved.json().path("runAt").asLong()).isBetween(before + 120_000, Instant.now().toEpochMilli() + 120_000);
    assertThat(api.get(jobs() + "/r").json().path("runAt").asLong()).isEqualTo(moved.json().path("runAt").asLong());

    Reply at = api.patch(jobs() + "/r", Map.of("runAt", "2099-06-01T12:00:00Z"));
    assertThat(at.json().path("runAt").asLong()).isEqualTo(Instant.parse("2099-06-01T12:00:00Z").toEpochMilli());

    assertError(api.patch(jobs() + "/nope", Map.of("delayMs", 1)), 404, "not_found", null);
    assertError(api.patch(jobs() + "/r", Map.of()), 400, "invalid_request", "delayMs");
    assertError(api.patch(jobs() + "/r", Map.of("delayMs", 1, "runAt", 2)), 400, "invalid_request", "delayMs");
  }

  // ---- workers ----

  @Test
  void claimsAcksAndRefusesAStaleAck() {
    schedule(Map.of("id", "w", "payload", "work", "maxAttempts", 4));
    Reply claimed = api.post("/v1/queues/" + queue + "/claim?max=10&leaseMs=5000");
    assertThat(claimed.status()).isEqualTo(200);
    JsonNode jobs = claimed.json();
    assertThat(jobs).hasSize(1);
    JsonNode job = jobs.get(0);
    assertThat(job.path("id").asText()).isEqualTo("w");
    assertThat(job.path("payload").asText()).isEqualTo("work");
    assertThat(job.path("attempt").asInt()).isEqualTo(1);
    assertThat(job.path("token").isTextual()).as("the token is a JSON string: %s", job).isTrue();
    assertThat(job.path("token").asText()).matches("[1-9][0-9]*");
    String token = job.path("token").asText();
    assertThat(job.path("maxAttempts").asInt()).isEqualTo(4);
    assertThat(job.path("leaseUntil").asLong() - job.path("runAt").asLong()).isBetween(5_000L, 6_000L);

    JsonNode active = api.get(jobs() + "/w").json();
    assertThat(active.path("state").asText()).isEqualTo("active");
    assertThat(active.path("leaseUntil").asLong()).isEqualTo(job.path("leaseUntil").asLong());
    assertError(api.delete(jobs() + "/w"), 409, "conflict", null);
    assertError(api.patch(jobs() + "/w", Map.of("delayMs", 5)), 409, "conflict", null);

    String otherToken = Long.toString(Long.parseLong(token) + 1_000_000);
    assertError(api.post(jobs() + "/w/ack", Map.of("token", otherToken)), 409, "conflict", null);
    assertThat(api.post(jobs() + "/w/ack", Map.of("token", token)).status()).isEqualTo(204);
    assertThat(api.get(jobs() + "/w").status()).isEqualTo(404);
    Reply stale = api.post(jobs() + "/w/ack", Map.of("token", token));
    assertError(stale, 409, "conflict", null);
    assertThat(stale.json().path("detail").asText()).contains("token " + token + " no longer holds the job");
  }

  @Test
  void aJobHandedBackIsDeliveredAgainOnTheSameAttemptWithANewTokenAndOnlyThatTokenSettlesIt() {
    schedule(Map.of("id", "h", "payload", "x", "maxAttempts", 3));
    JsonNode first = claimOne("h");
    // The claim's holder hands the job back without running it, as a long poll whose client hung up
    // does (through the same core call, made here from another process on the server's Redis).
    try (Delayq sameRedis = Delayq.connect(server.process().redisUrl())) {
      assertThat(sameRedis.queue(queue).pull().release("h", Long.parseLong(first.path("token").asText()))).isTrue();
    }
    JsonNode back = api.get(jobs() + "/h").json();
    assertThat(back.path("state").asText()).isEqualTo("scheduled");
    assertThat(back.path("attempts").asInt()).as("the attempt was not spent").isZero();

    JsonNode second = claimOne("h");
    assertThat(second.path("attempt").asInt()).isEqualTo(first.path("attempt").asInt()).isEqualTo(1);
    assertThat(second.path("token").asText()).isNotEqualTo(first.path("token").asText());

    Reply stale = api.post(jobs() + "/h/ack", Map.of("token", first.path("token").asText()));
    assertError(stale, 409, "conflict", null);
    assertThat(api.get(jobs() + "/h").json().path("state").asText()).as("the stale ack changed nothing").isEqualTo("active");
    assertError(api.post(jobs() + "/h/nack", Map.of("token", first.path("token").asText())), 409, "conflict", null);
    assertError(api.post(jobs() + "/h/lease", Map.of("token", first.path("token").asText(), "leaseMs", 1000)), 409, "conflict", null);
    assertThat(api.post(jobs() + "/h/ack", Map.of("token", second.path("token").asText())).status()).isEqualTo(204);
    assertThat(api.get(jobs() + "/h").status()).isEqualTo(404);
  }

  @Test
  void tokensAreAcceptedAsStringsOrIntegersAndAnAttemptIsRefusedWithWhatToSend() {
    schedule(Map.of("id", "t", "payload", "x"));
    JsonNode job = claimOne("t");
    String token = job.path("token").asText();

    Reply byAttempt = api.post(jobs() + "/t/ack", Map.of("attempt", 1));
    assertError(byAttempt, 400, "invalid_request", "attempt");
    assertThat(byAttempt.json().path("detail").asText()).contains("\"token\"").contains("claim response");
    assertError(api.post(jobs() + "/t/nack", Map.of("attempt", 1, "retryInMs", 0)), 400, "invalid_request", "attempt");
    assertError(api.post(jobs() + "/t/lease", Map.of("attempt", 1, "leaseMs", 1000)), 400, "invalid_request", "attempt");
    assertError(api.post(jobs() + "/t/ack", Map.of("attempt", 1, "token", token)), 400, "invalid_request", "attempt");

    for (String bad : List.of("{\"token\":\"abc\"}", "{\"token\":\"\"}", "{\"token\":\"-5\"}", "{\"token\":\" 5\"}",
        "{\"token\":\"0\"}", "{\"token\":\"99999999999999999999\"}", "{\"token\":1.5}", "{\"token\":-5}",
        "{\"token\":true}", "{\"token\":[1]}")) {
      Reply refused = api.post(jobs() + "/t/ack", bad);
      assertError(refused, 400, "invalid_request", "token");
      assertThat(refused.json().path("detail").asText()).as(bad).startsWith("token: must be the \"token\" from the job's claim response");
    }
    Reply missing = api.post(jobs() + "/t/ack", Map.of());
    assertError(missing, 400, "invalid_request", "token");
    assertThat(missing.json().path("detail").asText()).contains("claim response");
    assertThat(api.get(jobs() + "/t").json().path("state").asText()).as("no refusal touched the job").isEqualTo("active");

    // the same number as a JSON integer is accepted too
    Reply extended = api.post(jobs() + "/t/lease", "{\"token\":" + token + ",\"leaseMs\":60000}");
    assertThat(extended.status()).as(extended.toString()).isEqualTo(200);
    assertThat(api.post(jobs() + "/t/ack", "{\"token\":" + token + "}").status()).isEqualTo(204);
  }

  @Test
  void aLeaseThatEndedWithoutAnAckShowsAsExpiredUntilAClaimRecoversIt() {
    schedule(Map.of("id", "e", "payload", "x", "maxAttempts", 3));
    Reply claimed = api.post("/v1/queues/" + queue + "/claim?leaseMs=100");
    JsonNode first = claimed.json().get(0);
    long leaseUntil = first.path("leaseUntil").asLong();
    await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
        assertThat(api.get(jobs() + "/e").json().path("state").asText()).isEqualTo("expired"));
    JsonNode expired = api.get(jobs() + "/e").json();
    assertThat(expired.path("leaseUntil").asLong()).isEqualTo(leaseUntil);
    assertThat(expired.has("runAt")).isFalse();
    assertThat(expired.path("attempts").asInt()).isEqualTo(1);
    JsonNode stats = api.get("/v1/queues/" + queue).json();
    assertThat(stats.path("active").asLong()).isZero();
    assertThat(stats.path("expired").asLong()).isEqualTo(1);
    assertError(api.post(jobs() + "/e/ack", Map.of("token", first.path("token").asText())), 409, "conflict", null);

    JsonNode again = claimOne("e");
    assertThat(again.path("attempt").asInt()).as("an expired lease spends its attempt").isEqualTo(2);
    assertThat(again.path("token").asText()).isNotEqualTo(first.path("token").asText());
    assertThat(api.get("/v1/queues/" + queue).json().path("expired").asLong()).isZero();
    assertThat(api.post(jobs() + "/e/ack", Map.of("token", again.path("token").asText())).status()).isEqualTo(204);
  }

  @Test
  void nacksRetryThenBuryAndTheDeadCanBeRequeuedOrDeleted() {
    schedule(Map.of("id", "n", "payload", "x", "maxAttempts", 2));
    JsonNode claimed = claimOne("n");
    assertThat(claimed.path("attempt").asInt()).isEqualTo(1);
    assertThat(api.post(jobs() + "/n/nack", Map.of("token", token(claimed), "retryInMs", 0, "error", "boom")).status()).isEqualTo(204);
    JsonNode retried = api.get(jobs() + "/n").json();
    assertThat(retried.path("state").asText()).isEqualTo("scheduled");
    assertThat(retried.path("attempts").asInt()).isEqualTo(1);
    assertThat(retried.path("lastError").asText()).isEqualTo("boom");

    claimed = claimOne("n");
    assertThat(claimed.path("attempt").asInt()).isEqualTo(2);
    assertThat(api.post(jobs() + "/n/nack", Map.of("token", token(claimed), "error", "boom again")).status()).isEqualTo(204);
    JsonNode dead = api.get(jobs() + "/n").json();
    assertThat(dead.path("state").asText()).isEqualTo("dead");
    assertThat(dead.path("deadAt").asLong()).isPositive();

    Reply list = api.get("/v1/queues/" + queue + "/dead?limit=10");
    assertThat(list.status()).isEqualTo(200);
    assertThat(list.json()).hasSize(1);
    assertThat(list.json().get(0).path("id").asText()).isEqualTo("n");
    assertThat(list.json().get(0).path("lastError").asText()).isEqualTo("boom again");

    assertThat(api.post("/v1/queues/" + queue + "/dead/n/requeue").status()).isEqualTo(204);
    assertThat(api.get(jobs() + "/n").json().path("state").asText()).isEqualTo("scheduled");
    assertError(api.post("/v1/queues/" + queue + "/dead/n/requeue"), 404, "not_found", null);

    claimed = claimOne("n");
    api.post(jobs() + "/n/nack", Map.of("token", token(claimed), "retryInMs", 0));
    claimed = claimOne("n");
    api.post(jobs() + "/n/nack", Map.of("token", token(claimed), "retryInMs", 0));
    assertThat(api.get(jobs() + "/n").json().path("state").asText()).isEqualTo("dead");
    assertThat(api.delete("/v1/queues/" + queue + "/dead/n").status()).isEqualTo(204);
    assertError(api.delete("/v1/queues/" + queue + "/dead/n"), 404, "not_found", null);
    assertThat(api.get(jobs() + "/n").status()).isEqualTo(404);
  }

  @Test
  void extendsALease() {
    schedule(Map.of("id", "l", "payload", "x"));
    JsonNode job = api.post("/v1/queues/" + queue + "/claim?leaseMs=1000").json().get(0);
    Reply extended = api.post(jobs() + "/l/lease", Map.of("token", token(job), "leaseMs", 60_000));
    assertThat(extended.status()).isEqualTo(200);
    assertThat(extended.json().path("leaseUntil").asLong()).isGreaterThan(job.path("leaseUntil").asLong() + 50_000);
    assertThat(api.get(jobs() + "/l").json().path("leaseUntil").asLong()).isEqualTo(extended.json().path("leaseUntil").asLong());
    // a token of another claim: one issued after this one, and one before it
    for (long other : List.of(Long.parseLong(token(job)) + 1000, Long.parseLong(token(job)) - 1000)) {
      assertError(api.post(jobs() + "/l/lease", Map.of("token", Long.toString(other), "leaseMs", 1000)), 409, "conflict", null);
    }
    assertError(api.post(jobs() + "/l/lease", Map.of("token", token(job), "leaseMs", 5)), 400, "invalid_request", "leaseMs");
  }

  @Test
  void claimParametersAreChecked() {
    api.put("/v1/queues/" + queue, Map.of());
    assertError(api.post("/v1/queues/" + queue + "/claim?max=0"), 400, "invalid_request", "max");
    assertError(api.post("/v1/queues/" + queue + "/claim?max=abc"), 400, "invalid_request", "max");
    assertError(api.post("/v1/queues/" + queue + "/claim?waitMs=60001"), 400, "invalid_request", "waitMs");
    assertError(api.post("/v1/queues/" + queue + "/claim?leaseMs=99"), 400, "invalid_request", "leaseMs");
    assertError(api.post("/v1/queues/" + queue + "/claim?wait=5"), 400, "invalid_request", "wait");
    assertError(api.post("/v1/queues/" + queue + "/claim?max=1&max=2"), 400, "invalid_request", "max");
    assertThat(api.post("/v1/queues/" + queue + "/claim").json()).isEmpty();
  }

  // ---- queues ----

  @Test
  void configuresQueuesAndReportsTheirCounts() {
    Reply created = api.put("/v1/queues/" + queue, Map.of("partitions", 4, "maxAttempts", 7, "leaseMs", 45_000));
    assertThat(created.status()).as(created.toString()).isEqualTo(200);
    assertThat(created.json()).isEqualTo(ApiClient.JSON.valueToTree(
        Map.of("queue", queue, "partitions", 4, "maxAttempts", 7, "leaseMs", 45_000)));

    Reply updated = api.put("/v1/queues/" + queue, Map.of("maxAttempts", 2));
    assertThat(updated.json().path("maxAttempts").asInt()).isEqualTo(2);
    assertThat(updated.json().path("leaseMs").asLong()).isEqualTo(45_000);
    assertThat(api.send("PUT", "/v1/queues/" + queue, null, null).json().path("partitions").asInt()).isEqualTo(4);

    schedule(Map.of("id", "due", "payload", "x"));
    schedule(Map.of("id", "later", "payload", "x", "delayMs", 60_000));
    assertThat(api.get(jobs() + "/due").json().path("maxAttempts").asInt()).as("the queue's default").isEqualTo(2);
    JsonNode claimed = api.post("/v1/queues/" + queue + "/claim").json().get(0);
    assertThat(claimed.path("leaseUntil").asLong() - claimed.path("runAt").asLong()).isGreaterThanOrEqualTo(45_000);
    schedule(Map.of("id", "due2", "payload", "x"));

    JsonNode stats = api.get("/v1/queues/" + queue).json();
    assertThat(stats).isEqualTo(ApiClient.JSON.valueToTree(Map.of(
        "queue", queue, "partitions", 4, "scheduled", 2, "due", 1, "active", 1, "expired", 0, "dead", 0,
        "paused", false)));

    assertThat(api.allQueues()).extracting(q -> q.path("queue").asText()).contains(queue);

    Reply refused = api.put("/v1/queues/" + queue, Map.of("partitions", 8));
    assertError(refused, 409, "conflict", null);
    assertThat(refused.json().path("detail").asText()).contains("has 4 partition(s); 8 were asked for");
    assertError(api.put("/v1/queues/" + queue, Map.of("partitions", 0)), 400, "invalid_request", "partitions");
  }

  @Test
  void pausesAndResumesClaiming() {
    schedule(Map.of("id", "p", "payload", "x"));
    assertThat(api.post("/v1/queues/" + queue + "/pause").status()).isEqualTo(204);
    assertThat(api.get("/v1/queues/" + queue).json().path("paused").asBoolean()).isTrue();
    assertThat(api.post("/v1/queues/" + queue + "/claim").json()).isEmpty();
    assertThat(api.post("/v1/queues/" + queue + "/resume").status()).isEqualTo(204);
    assertThat(api.post("/v1/queues/" + queue + "/claim").json()).hasSize(1);
  }

  @Test
  void readsOfAnUnknownQueueAre404() {
    String unknown = "/v1/queues/" + queue;
    for (Reply reply : List.of(
        api.get(unknown),
        api.get(unknown + "/jobs/x"),
        api.delete(unknown + "/jobs/x"),
        api.patch(unknown + "/jobs/x", Map.of("delayMs", 1)),
        api.post(unknown + "/claim?waitMs=100"),
        api.post(unknown + "/jobs/x/ack", Map.of("token", "1")),
        api.post(unknown + "/jobs/x/nack", Map.of("token", "1")),
        api.post(unknown + "/jobs/x/lease", Map.of("token", "1", "leaseMs", 1000)),
        api.post(unknown + "/pause"),
        api.post(unknown + "/resume"),
        api.get(unknown + "/dead"),
        api.post(unknown + "/dead/x/requeue"),
        api.delete(unknown + "/dead/x"))) {
      assertError(reply, 404, "not_found", null);
      assertThat(reply.json().path("detail").asText()).contains("queue '" + queue + "' does not exist");
    }
    assertThat(api.allQueues()).extracting(q -> q.path("queue").asText()).doesNotContain(queue);
  }

  // ---- refusals ----

  @Test
  void refusesBadBodiesWithTheFieldAndTheRule() {
    assertError(api.post(jobs(), "{\"payload\": "), 400, "invalid_request", "body");
    assertError(api.post(jobs(), "{\"payload\":\"x\"} trailing"), 400, "invalid_request", "body");
    assertError(api.post(jobs(), "{\"payload\":\"x\",\"payload\":\"y\"}"), 400, "invalid_request", "body");
    assertError(api.send("POST", jobs(), "application/json", new byte[0]), 400, "invalid_request", "body");
    assertError(schedule(Map.of("delayMs", 5)), 400, "invalid_request", "payload");
    assertError(schedule(Map.of("payload", "x", "delayMs", 5, "runAt", 6)), 400, "invalid_request", "delayMs");
    Reply negative = schedule(Map.of("payload", "x", "delayMs", -5));
    assertError(negative, 400, "invalid_request", "delayMs");
    assertThat(negative.json().path("detail").asText()).isEqualTo("delayMs: must be between 0 and 31536000000000; got -5");
    assertError(api.post(jobs(), "{\"payload\":\"x\",\"delayMs\":99999999999999999999}"), 400, "invalid_request", "delayMs");
    assertError(api.post(jobs(), "{\"payload\":\"x\",\"delayMs\":31536000000001}"), 400, "invalid_request", "delayMs");
    assertError(schedule(Map.of("payload", "x", "runAt", -1)), 400, "invalid_request", "runAt");
    assertError(api.post(jobs(), "{\"payload\":\"x\",\"runAt\":253402300800000}"), 400, "invalid_request", "runAt");
    assertError(schedule(Map.of("payload", "x", "runAt", "next tuesday")), 400, "invalid_request", "runAt");
    assertError(schedule(Map.of("payload", "x", "maxAttempts", 1001)), 400, "invalid_request", "maxAttempts");
    assertError(schedule(Map.of("payload", "x", "wat", 1)), 400, "invalid_request", "wat");
    assertError(api.post(jobs() + "/x/ack", Map.of()), 400, "invalid_request", "token");
  }

  @Test
  void refusesIdsOverTheLimitAndBadQueueNames() {
    String longId = "é".repeat(129); // 258 bytes in UTF-8
    Reply inBody = schedule(Map.of("id", longId, "payload", "x"));
    assertError(inBody, 400, "invalid_request", "id");
    assertThat(inBody.json().path("detail").asText()).contains("258 bytes");
    String encoded = java.net.URLEncoder.encode(longId, StandardCharsets.UTF_8);
    assertError(api.get(jobs() + "/" + encoded), 400, "invalid_request", "id");
    assertError(api.delete(jobs() + "/" + encoded), 400, "invalid_request", "id");
    assertError(api.get(jobs() + "/%C3%28"), 400, "invalid_request", "id");
    assertError(api.get("/v1/queues/bad%20name"), 400, "invalid_request", "queue");
    assertError(api.post("/v1/queues/" + "q".repeat(129) + "/jobs", Map.of("payload", "x")), 400, "invalid_request", "queue");
  }

  @Test
  void refusesBodiesOverTheLimitWith413() {
    byte[] big = new byte[BodyLimits.JOB_BYTES + 1024];
    java.util.Arrays.fill(big, (byte) ' ');
    Reply tooLarge = api.send("POST", jobs(), "application/json", big);
    assertError(tooLarge, 413, "payload_too_large", null);
    assertThat(tooLarge.json().path("detail").asText()).contains("1,572,864 bytes");
    // a payload over 1 MiB inside a body under the limit is a 400 naming the payload
    Reply payload = schedule(Map.of("payload", "x".repeat(BodyLimits.PAYLOAD_BYTES + 1)));
    assertError(payload, 400, "invalid_request", "payload");
    assertThat(api.get("/v1/queues/" + queue).status()).isEqualTo(404);
  }

  @Test
  void refusesOtherMediaTypes() {
    assertError(api.send("POST", jobs(), "text/plain", "{\"payload\":\"x\"}".getBytes(StandardCharsets.UTF_8)),
        415, "unsupported_media_type", null);
    assertError(api.send("POST", jobs(), null, "{\"payload\":\"x\"}".getBytes(StandardCharsets.UTF_8)),
        415, "unsupported_media_type", null);
    assertError(api.send("POST", jobs(), "application/json; charset=latin1", "{\"payload\":\"x\"}".getBytes(StandardCharsets.UTF_8)),
        415, "unsupported_media_type", null);
    assertThat(api.send("POST", jobs(), "application/json; charset=UTF-8", "{\"payload\":\"x\"}".getBytes(StandardCharsets.UTF_8)).status())
        .isEqualTo(201);
  }

  @Test
  void unknownRoutesAre404AndWrongMethods405() {
    assertError(api.get("/v1/nothing"), 404, "not_found", null);
    assertError(api.get("/v1"), 404, "not_found", null);
    // outside /v1 is the dashboard's: its root is the queues page, and anything else an HTML 404
    assertThat(api.get("/").header("Content-Type")).isEqualTo("text/html; charset=utf-8");
    assertThat(api.get("/nothing").status()).isEqualTo(404);
    assertThat(api.get("/nothing").header("Content-Type")).isEqualTo("text/html; charset=utf-8");
    assertError(api.post("/v1/queues/" + queue + "/jobs/x/explode", Map.of()), 404, "not_found", null);
    Reply wrong = api.send("PUT", jobs() + "/x", "application/json", "{}".getBytes(StandardCharsets.UTF_8));
    assertError(wrong, 405, "method_not_allowed", null);
    assertThat(wrong.header("Allow")).isEqualTo("DELETE, GET, PATCH");
    Reply notOnTheCollection = api.delete(jobs());
    assertError(notOnTheCollection, 405, "method_not_allowed", null);
    assertThat(notOnTheCollection.header("Allow")).isEqualTo("GET, POST");
    assertError(api.delete("/health"), 405, "method_not_allowed", null);
  }

  @Test
  void aBadRequestLeavesOtherJobsUntouched() {
    schedule(Map.of("id", "keep-me", "payload", "original", "delayMs", 60_000, "maxAttempts", 3));
    JsonNode before = api.get(jobs() + "/keep-me").json();

    assertError(api.post(jobs() + ":batch", List.of(
        Map.of("id", "keep-me", "payload", "overwritten?", "delayMs", 1),
        Map.of("id", "other", "payload", "x", "maxAttempts", 0))), 400, "invalid_request", "[1].maxAttempts");
    assertError(schedule(Map.of("id", "keep-me", "payload", "overwritten?", "delayMs", -1)), 400, "invalid_request", "delayMs");
    assertError(api.patch(jobs() + "/keep-me", Map.of("delayMs", -1)), 400, "invalid_request", "delayMs");
    assertError(api.patch(jobs() + "/keep-me", "{\"delayMs\": 1,"), 400, "invalid_request", "body");
    assertError(api.send("POST", jobs(), "text/plain", "{\"id\":\"keep-me\",\"payload\":\"y\"}".getBytes(StandardCharsets.UTF_8)),
        415, "unsupported_media_type", null);
    assertError(api.post(jobs() + "/keep-me/ack", Map.of("token", "1")), 409, "conflict", null);

    assertThat(api.get(jobs() + "/keep-me").json()).isEqualTo(before);
    assertThat(api.get("/v1/queues/" + queue).json().path("scheduled").asLong()).isEqualTo(1);
  }

  // ---- operations ----

  @Test
  void healthSaysRedisIsUp() {
    Reply health = api.get("/health");
    assertThat(health.status()).isEqualTo(200);
    assertThat(health.json().path("status").asText()).isEqualTo("up");
    assertThat(health.json().path("redis").asText()).isEqualTo("up");
    // every queue forwarded on this Redis has a forwarder in this server too
    assertThat(health.json().path("forwarders").isIntegralNumber()).as(health.toString()).isTrue();
  }

  /** Claims the queue's one due job, which must be {@code id}; returns the claim's view of it. */
  private JsonNode claimOne(String id) {
    JsonNode jobs = api.post("/v1/queues/" + queue + "/claim?max=1&leaseMs=30000&waitMs=5000").json();
    assertThat(jobs).hasSize(1);
    assertThat(jobs.get(0).path("id").asText()).isEqualTo(id);
    return jobs.get(0);
  }

  /** The delivery's token, as the claim sent it: a string of digits. */
  private static String token(JsonNode claimed) {
    assertThat(claimed.path("token").isTextual()).as("token of %s", claimed).isTrue();
    return claimed.path("token").asText();
  }

  /** Every error has the API's body; {@code field} null means "no field expected". */
  static void assertError(Reply reply, int status, String code, String field) {
    assertThat(reply.status()).as(reply.toString()).isEqualTo(status);
    assertThat(reply.header("Content-Type")).isEqualTo("application/json; charset=utf-8");
    JsonNode body = reply.json();
    assertThat(body.path("error").asText()).as(reply.toString()).isEqualTo(code);
    assertThat(body.path("detail").asText()).as(reply.toString()).isNotBlank();
    if (field != null) {
      assertThat(body.path("field").asText()).as(reply.toString()).isEqualTo(field);
    } else {
      assertThat(body.has("field")).as(reply.toString()).isFalse();
    }
  }
}
