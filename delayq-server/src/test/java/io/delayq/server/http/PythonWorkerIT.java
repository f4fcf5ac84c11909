package io.delayq.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.server.testing.ApiClient;
import io.delayq.server.testing.ServerProcess;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A worker in another language: {@code src/test/resources/python/worker.py}, standard library only,
 * claims with long polls, acks and nacks over HTTP with a bearer token read by the server from a
 * token file.
 */
class PythonWorkerIT {
  @TempDir Path dir;

  @Test
  void aPythonWorkerAcksAndNacksOverHttp() throws Exception {
    Path python = pythonOnPath();
    Assumptions.assumeTrue(python != null, "python3 is not on PATH; the Python worker test needs it");
    String token = "py-" + UUID.randomUUID();
    Path tokenFile = Files.writeString(dir.resolve("token"), token + "\n");
    try (ServerProcess server = ServerProcess.start("--token-file", tokenFile.toString())) {
      ApiClient api = new ApiClient(server.baseUrl(), token);
      String queue = "it-python-" + UUID.randomUUID().toString().substring(0, 8);
      String jobs = "/v1/queues/" + queue + "/jobs";
      List<Map<String, Object>> batch = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        batch.add(Map.of("id", "ok-" + i, "payload", "ok"));
      }
      for (int i = 0; i < 3; i++) {
        batch.add(Map.of("id", "fail-" + i, "payload", "fail", "maxAttempts", 2, "delayMs", 200));
      }
      assertThat(api.post(jobs + ":batch", batch).status()).isEqualTo(201);

      Path worker = Path.of(Objects.requireNonNull(PythonWorkerIT.class.getResource("/python/worker.py")).toURI());
      Process process =
          new ProcessBuilder(python.toString(), worker.toString(), server.baseUrl(), queue, token)
              .redirectError(ProcessBuilder.Redirect.INHERIT)
              .start();
      String stdout = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("the worker finished").isTrue();
      assertThat(process.exitValue()).as(stdout).isZero();

      JsonNode summary = ApiClient.JSON.readTree(stdout.strip().lines().reduce((a, b) -> b).orElse("{}"));
      assertThat(summary.path("errors")).as(stdout).isEmpty();
      assertThat(summary.path("acked").asInt()).isEqualTo(5);
      assertThat(summary.path("nacked").asInt()).as("each failing job nacked on both attempts").isEqualTo(6);
      assertThat(summary.path("claimed").asInt()).isEqualTo(11);

      for (int i = 0; i < 5; i++) {
        assertThat(api.get(jobs + "/ok-" + i).status()).as("ok-%d is done and gone", i).isEqualTo(404);
      }
      for (int i = 0; i < 3; i++) {
        JsonNode job = api.get(jobs + "/fail-" + i).json();
        assertThat(job.path("state").asText()).isEqualTo("dead");
        assertThat(job.path("attempts").asInt()).isEqualTo(2);
        assertThat(job.path("lastError").asText()).isEqualTo("payload said fail");
      }
      JsonNode stats = api.get("/v1/queues/" + queue).json();
      assertThat(stats.path("scheduled").asLong() + stats.path("active").asLong()).isZero();
      assertThat(stats.path("dead").asLong()).isEqualTo(3);
    }
  }

  private static Path pythonOnPath() {
    String path = Objects.requireNonNullElse(System.getenv("PATH"), "");
    return Stream.of(path.split(File.pathSeparator))
        .filter(d -> !d.isBlank())
        .map(d -> Path.of(d, "python3"))
        .filter(Files::isExecutable)
        .findFirst()
        .orElse(null);
  }
}
