package io.delayq.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.server.testing.ApiClient;
import io.delayq.server.testing.ApiClient.Reply;
import io.delayq.server.testing.SharedServer;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The long-poll claim: it returns as soon as a job is due, and not before; or empty after waitMs. */
class LongPollIT {
  @RegisterExtension static final SharedServer server = new SharedServer();
  private static final long LEASE_MS = 30_000;

  private ApiClient api;
  private String queue;

  @BeforeEach
  void setUp() {
    api = server.api();
    queue = "it-longpoll-" + UUID.randomUUID().toString().substring(0, 8);
    assertThat(api.put("/v1/queues/" + queue, Map.of()).status()).isEqualTo(200);
  }

  @Test
  void aJobClaimedForAWorkerThatHungUpGoesBackWithoutCountingTheAttempt() throws Exception {
    // The hung-up claim's token never reaches anyone; the release by that token is what puts the job
    // back, and the next delivery is on the same attempt under a token of its own.
    URI base = URI.create(server.process().baseUrl());
    try (Socket worker = new Socket(base.getHost(), base.getPort())) {
      String request = "POST /v1/queues/" + queue + "/claim?waitMs=20000&leaseMs=" + LEASE_MS + " HTTP/1.1\r\n"
          + "Host: " + base.getHost() + "\r\nContent-Length: 0\r\n\r\n";
      worker.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
      worker.getOutputStream().flush();
      // the worker waits briefly, then gives up and hangs up while its claim still waits
      await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(1))
          .until(() -> worker.getInputStream().available() == 0);
    }
    assertThat(api.post("/v1/queues/" + queue + "/jobs", Map.of("id", "orphan", "payload", "x")).status()).isEqualTo(201);
    // the claim takes the job and cannot answer; the job is back, due, with its attempt unspent
    await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
      JsonNode job = api.get("/v1/queues/" + queue + "/jobs/orphan").json();
      assertThat(job.path("state").asText()).isEqualTo("scheduled");
      assertThat(job.path("attempts").asInt()).isZero();
    });
    JsonNode again = api.post("/v1/queues/" + queue + "/claim?leaseMs=" + LEASE_MS).json();
    assertThat(again).singleElement().satisfies(job -> {
      assertThat(job.path("attempt").asInt()).isEqualTo(1);
      assertThat(job.path("token").asText()).matches("[1-9][0-9]*");
    });
    Reply acked = api.post("/v1/queues/" + queue + "/jobs/orphan/ack", Map.of("token", again.get(0).path("token").asText()));
    assertThat(acked.status()).as(acked.toString()).isEqualTo(204);
  }

  @Test
  void aWaitingClaimReturnsTheJobWithinMillisecondsOfItsDueTime() throws Exception {
    for (int round = 0; round < 3; round++) {
      CompletableFuture<Timed> claim =
          CompletableFuture.supplyAsync(() -> timed(() -> api.post("/v1/queues/" + queue + "/claim?waitMs=10000&leaseMs=" + LEASE_MS)));

      Reply scheduled = api.post("/v1/queues/" + queue + "/jobs", Map.of("id", "soon-" + round, "payload", "x", "delayMs", 500));
      assertThat(scheduled.status()).isEqualTo(201);
      long runAt = scheduled.json().path("runAt").asLong();

      Timed answer = claim.get(15, TimeUnit.SECONDS);
      assertThat(answer.reply.status()).isEqualTo(200);
      JsonNode jobs = answer.reply.json();
      assertThat(jobs).as("round %d", round).hasSize(1);
      JsonNode job = jobs.get(0);
      assertThat(job.path("id").asText()).isEqualTo("soon-" + round);
      assertThat(job.path("runAt").asLong()).isEqualTo(runAt);
      // By the Redis clock the lease started at the claim: never before the job was due.
      long claimedAt = job.path("leaseUntil").asLong() - LEASE_MS;
      // That is the server's own wake-up: within milliseconds of the due time.
      assertThat(claimedAt).as("claimed at, by the Redis clock").isBetween(runAt, runAt + 100);
      // By this machine's clock (the same one Redis reads), the answer reached the client soon after;
      // the looser bound leaves room for a garbage collection in either JVM on a busy 2-core machine.
      assertThat(answer.endMillis).as("answered at").isGreaterThanOrEqualTo(runAt).isLessThanOrEqualTo(runAt + 1000);
      assertThat(job.path("attempt").asInt()).isEqualTo(1);
      assertThat(api.post("/v1/queues/" + queue + "/jobs/soon-" + round + "/ack", Map.of("token", job.path("token").asText()))
          .status()).isEqualTo(204);
    }
  }

  @Test
  void aClaimOnAnEmptyQueueReturnsAnEmptyArrayAfterWaitMs() {
    Timed answer = timed(() -> api.post("/v1/queues/" + queue + "/claim?waitMs=300"));
    assertThat(answer.reply.status()).isEqualTo(200);
    assertThat(answer.reply.json()).isEmpty();
    assertThat(answer.elapsed).isGreaterThanOrEqualTo(Duration.ofMillis(300)).isLessThan(Duration.ofMillis(1_500));
  }

  @Test
  void aWaitLongerThanOneSliceStillWaitsItsWholeTime() {
    Timed answer = timed(() -> api.post("/v1/queues/" + queue + "/claim?waitMs=1300"));
    assertThat(answer.reply.json()).isEmpty();
    assertThat(answer.elapsed).isGreaterThanOrEqualTo(Duration.ofMillis(1_300)).isLessThan(Duration.ofMillis(2_500));
  }

  @Test
  void aJobAlreadyDueIsReturnedAtOnceAndManyAtATime() {
    for (int i = 0; i < 5; i++) {
      api.post("/v1/queues/" + queue + "/jobs", Map.of("id", "now-" + i, "payload", "x"));
    }
    Timed answer = timed(() -> api.post("/v1/queues/" + queue + "/claim?waitMs=10000&max=10"));
    assertThat(answer.reply.json()).hasSize(5);
    assertThat(answer.elapsed).isLessThan(Duration.ofSeconds(1));
  }

  private record Timed(Reply reply, Duration elapsed, long endMillis) {}

  private static Timed timed(java.util.function.Supplier<Reply> call) {
    long start = System.nanoTime();
    Reply reply = call.get();
    long end = System.currentTimeMillis();
    return new Timed(reply, Duration.ofNanos(System.nanoTime() - start), end);
  }
}
