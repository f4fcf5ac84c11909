package io.delayq.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.server.testing.ApiClient;
import io.delayq.server.testing.ApiClient.Reply;
import io.delayq.server.testing.ServerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGTERM on a server with the embedded Redis: it drains (a waiting claim returns early), closes
 * the client, stops Redis with SHUTDOWN so the AOF is flushed, and exits 0; started again on the
 * same data dir, it still has the jobs.
 */
class GracefulShutdownIT {
  @TempDir Path dataDir;

  @Test
  void sigtermStopsInOrderAndTheJobsSurviveARestart() throws Exception {
    String jobUrl = "/v1/queues/durable/jobs/survivor";
    CompletableFuture<Reply> waitingClaim;
    long sigterm;
    List<String> output;
    try (ServerProcess first = ServerProcess.startEmbedded(dataDir)) {
      ApiClient api = new ApiClient(first.baseUrl());
      assertThat(String.join("\n", first.output()))
          .contains("starting the embedded redis-server")
          .contains("appendfsync everysec")
          .contains("data in " + dataDir.resolve("redis").toRealPath())
          .contains("log in " + dataDir.resolve("redis.log").toRealPath());
      Reply scheduled = api.post("/v1/queues/durable/jobs",
          Map.of("id", "survivor", "payload", "still here", "delayMs", 3_600_000, "maxAttempts", 3));
      assertThat(scheduled.status()).isEqualTo(201);
      api.put("/v1/queues/idle", Map.of());
      waitingClaim = CompletableFuture.supplyAsync(() -> api.post("/v1/queues/idle/claim?waitMs=30000"));
      await().atMost(Duration.ofSeconds(10))
          .until(() -> api.get("/metrics").body().contains("delayq_http_waiting_claims 1.0"));

      sigterm = System.nanoTime();
      int exitCode = first.terminate(Duration.ofSeconds(15));
      assertThat(exitCode).as(String.join("\n", first.output())).isZero();
      assertThat(Duration.ofNanos(System.nanoTime() - sigterm)).isLessThan(Duration.ofSeconds(15));
      output = first.output();
    }

    Reply claim = waitingClaim.get(5, TimeUnit.SECONDS);
    assertThat(claim.status()).as("the waiting claim was answered, not cut off").isEqualTo(200);
    assertThat(claim.json()).isEmpty();

    assertThat(output).as("the shutdown steps, in order").containsSubsequence(
        output.stream().filter(l -> l.contains("shutdown: SIGTERM received")).findFirst().orElse("SIGTERM line missing"),
        output.stream().filter(l -> l.contains("no longer taking requests")).findFirst().orElse("drain line missing"),
        output.stream().filter(l -> l.contains("all requests finished")).findFirst().orElse("drained line missing"),
        output.stream().filter(l -> l.contains("HTTP server stopped")).findFirst().orElse("HTTP line missing"),
        output.stream().filter(l -> l.contains("delayq client closed")).findFirst().orElse("client line missing"),
        output.stream().filter(l -> l.contains("embedded Redis stopped with SHUTDOWN")).findFirst().orElse("Redis line missing"),
        output.stream().filter(l -> l.contains("shutdown: done")).findFirst().orElse("done line missing"));
    assertThat(String.join("\n", output)).contains("1 waiting claims told to return");
    try (var files = Files.list(dataDir.resolve("redis"))) {
      assertThat(files.map(p -> p.getFileName().toString())).anyMatch(name -> name.startsWith("appendonly"));
    }
    assertThat(dataDir.resolve("redis.log")).isNotEmptyFile();

    try (ServerProcess second = ServerProcess.startEmbedded(dataDir)) {
      Reply got = new ApiClient(second.baseUrl()).get(jobUrl);
      assertThat(got.status()).as(got.toString()).isEqualTo(200);
      JsonNode job = got.json();
      assertThat(job.path("payload").asText()).isEqualTo("still here");
      assertThat(job.path("state").asText()).isEqualTo("scheduled");
      assertThat(job.path("maxAttempts").asInt()).isEqualTo(3);
    }
  }
}
