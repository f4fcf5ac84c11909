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
import org.junit.jupiter.api.Test;

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
  void seedSchedules(String queue, int count) {
    for (int i = 0; i < count; i++) {
      call("PUT", "/v1/queues/" + queue + "/schedules/" + String.format("s%03d", i),
          JSON.createObjectNode().put("every", "PT1H"), 201);
    }
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
    // why: every page, not the first 100 names only: the shared test Redis may hold many queues
    List<String> names = new ArrayList<>();
    new io.delayq.server.testing.ApiClient(server.baseUrl()).allQueues()
        .forEach(stats -> names.add(stats.get("queue").asText()));
    return names;
  }

  // ---- Needs the server's GET /v1/queues/{queue}/jobs and DELETE /v1/queues/{queue}. Written against
  // ---- the contract (API.md); they fail on a server that does not have these routes yet.

  @Test
  void jobsLsListsEachStateAndPagesThroughEveryJobWithAll() throws Exception {
    makeDead(queue, "dead-1", "boom");
    seed(queue, "due-1", Duration.ZERO);
    seed(queue, "due-2", Duration.ZERO);
    JsonNode claimed = claim(queue);
    String active = claimed.get("id").asText();
    String stillDue = active.equals("due-1") ? "due-2" : "due-1";
    for (String id : List.of("later-1", "later-2", "later-3")) {
      seed(queue, id, Duration.ofHours(1));
    }

    Cli.Result due = delayqOk("jobs", "ls", queue, "--state", "due");
    assertThat(due.outLines().get(0)).matches("ID +DUE +ATTEMPTS +PAYLOAD");
    assertThat(due.outLines()).hasSize(2);
    assertThat(rowOf(due.outLines(), stillDue)).matches(stillDue + " +\\S+Z \\(.*\\) +0/\\d+ +seeded " + stillDue);

    Cli.Result held = delayqOk("jobs", "ls", queue, "--state", "active");
    assertThat(held.outLines().get(0)).matches("ID +DUE +ATTEMPTS +LEASE UNTIL +PAYLOAD");
    assertThat(rowOf(held.outLines(), active)).contains(" 1/").contains("(in ");

    assertThat(idsOf(JSON.readTree(delayqOk("jobs", "ls", queue, "--state", "dead", "--json").out())))
        .containsExactly("dead-1");
    JsonNode scheduled = JSON.readTree(delayqOk("jobs", "ls", queue, "--json").out());
    assertThat(idsOf(scheduled)).as("scheduled is the default state").contains("later-1", "later-2", "later-3");
    JsonNode first = scheduled.get("jobs").get(0);
    assertThat(first.get("state").asText()).isIn("scheduled", "due");
    assertThat(first.get("runAt").isNumber()).isTrue();
    assertThat(first.get("payload").asText()).startsWith("seeded ");

    JsonNode onePage = JSON.readTree(delayqOk("jobs", "ls", queue, "--limit", "1", "--json").out());
    assertThat(onePage.get("jobs")).hasSize(1);
    assertThat(onePage.get("nextCursor").isTextual()).as("%s", onePage).isTrue();
    Cli.Result oneRow = delayqOk("jobs", "ls", queue, "--limit", "1");
    assertThat(oneRow.outLines()).hasSize(3);
    assertThat(oneRow.outLines().get(2)).isEqualTo("more jobs follow: add --all to list them all");

    JsonNode all = JSON.readTree(delayqOk("jobs", "ls", queue, "--limit", "1", "--all", "--json").out());
    assertThat(all.get("nextCursor").isNull()).isTrue();
    assertThat(idsOf(all)).containsAll(List.of("later-1", "later-2", "later-3")).doesNotHaveDuplicates()
        .doesNotContain(active, "dead-1");
    Cli.Result allRows = delayqOk("jobs", "ls", queue, "--limit", "2", "--all");
    assertThat(allRows.outLines()).filteredOn(line -> line.startsWith("later-")).hasSize(3);
    assertThat(allRows.outLines()).filteredOn(line -> line.startsWith("ID ")).hasSize(1);

    Cli.Result missing = delayq("jobs", "ls", queue + "-missing");
    assertExit(missing, 3);
    assertThat(missing.err()).startsWith("delayq jobs ls: no queue '" + queue + "-missing'");
    Cli.Result badLimit = delayq("jobs", "ls", queue, "--limit", "0");
    assertExit(badLimit, 2);
    assertThat(badLimit.err()).contains("--limit must be from 1 to 1000; got 0");
  }

  @Test
  void deleteQueueRemovesItsJobsAndWantsForceWhileWorkersHoldSome() throws Exception {
    seed(queue, "held", Duration.ZERO);
    claim(queue);
    seed(queue, "later-1", Duration.ofHours(1));
    seed(queue, "later-2", Duration.ofHours(1));

    Cli.Result refused = delayq("delete-queue", queue);
    assertExit(refused, 4);
    assertThat(refused.err()).startsWith("delayq delete-queue: ").contains("delayq delete-queue " + queue + " --force");
    assertThat(queueNames()).contains(queue);

    Cli.Result forced = delayqOk("delete-queue", queue, "--force");
    assertThat(forced.out()).isEqualToIgnoringNewLines("deleted queue " + queue + " and its 3 jobs");
    assertThat(queueNames()).doesNotContain(queue);
    Cli.Result again = delayq("delete-queue", queue);
    assertExit(again, 3);
    assertThat(again.err()).contains("no queue '" + queue + "'");

    String idle = queue + "-idle";
    seed(idle, "later", Duration.ofHours(1));
    assertThat(delayqOk("delete-queue", idle).out()).isEqualToIgnoringNewLines(
        "deleted queue " + idle + " and its 1 job");
  }

  private static List<String> idsOf(JsonNode page) {
    List<String> ids = new ArrayList<>();
    page.get("jobs").forEach(job -> ids.add(job.get("id").asText()));
    return ids;
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

  @Test
  void adoptNeedsTheRedisItself() {
    Cli.Result refused = delayq("adopt", "legacy", "--queue", queue, "--once");
    assertExit(refused, 2);
    assertThat(refused.err()).contains("--redis");
  }
}
