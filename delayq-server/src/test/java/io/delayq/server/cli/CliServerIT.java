package io.delayq.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.delayq.server.testing.ServerProcess;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The job commands with {@code --server}, against the real jar's {@code serve} on {@code
 * DELAYQ_TEST_REDIS} or an embedded Redis. The test seeds and claims jobs through the HTTP API v1
 * as API.md describes it, as a worker in another language would.
 */
class CliServerIT extends CliContract {
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static ServerProcess server;

  @BeforeAll
  static void startServer() throws IOException {
    server = ServerProcess.start();
  }

  @AfterAll
  static void stopServer() throws InterruptedException {
    if (server != null) {
      server.close();
    }
  }

  @Override
  List<String> connection() {
    return List.of("--server", server.baseUrl());
  }

  @Override
  void seed(String queue, String id, Duration delay) {
    ObjectNode body = JSON.createObjectNode().put("id", id).put("payload", "seeded " + id).put("delayMs", delay.toMillis());
    call("POST", "/v1/queues/" + queue + "/jobs", body, 201);
  }

  @Override
  void claimOne(String queue) {
    claim(queue);
  }

  @Override
  void claimAndAbandon(String queue) {
    JsonNode claimed = call("POST", "/v1/queues/" + queue + "/claim?max=1&leaseMs=100&waitMs=5000", null, 200);
    assertThat(claimed).as("claimed jobs").hasSize(1);
  }

  @Override
  void makeDead(String queue, String id, String error) {
    ObjectNode body = JSON.createObjectNode().put("id", id).put("payload", "doomed " + id).put("maxAttempts", 1);
    call("POST", "/v1/queues/" + queue + "/jobs", body, 201);
    JsonNode job = claim(queue);
    assertThat(job.get("id").asText()).isEqualTo(id);
    assertThat(job.get("token").isTextual()).as("token of %s", job).isTrue();
    ObjectNode nack = JSON.createObjectNode().put("token", job.get("token").asText()).put("error", error);
    call("POST", "/v1/queues/" + queue + "/jobs/" + id + "/nack", nack, 204);
  }

  @Override
  List<String> queueNames() {
    List<String> names = new ArrayList<>();
    call("GET", "/v1/queues", null, 200).forEach(stats -> names.add(stats.get("queue").asText()));
    return names;
  }

  private static JsonNode claim(String queue) {
    JsonNode claimed = call("POST", "/v1/queues/" + queue + "/claim?max=1&leaseMs=600000&waitMs=5000", null, 200);
    assertThat(claimed).as("claimed jobs").hasSize(1);
    return claimed.get(0);
  }

  private static JsonNode call(String method, String path, JsonNode body, int expectedStatus) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(server.baseUrl() + path)).timeout(Duration.ofSeconds(30));
    if (body != null) {
      request.header("Content-Type", "application/json")
          .method(method, HttpRequest.BodyPublishers.ofString(body.toString()));
    } else {
      request.method(method, HttpRequest.BodyPublishers.noBody());
    }
    try {
      HttpResponse<String> response = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).as("%s %s: %s", method, path, response.body()).isEqualTo(expectedStatus);
      return response.body().isBlank() ? null : JSON.readTree(response.body());
    } catch (IOException e) {
      throw new IllegalStateException(method + " " + path, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
