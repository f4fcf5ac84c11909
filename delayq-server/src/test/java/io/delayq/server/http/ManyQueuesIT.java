package io.delayq.server.http;

import static io.delayq.server.http.HttpApiIT.assertError;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.server.testing.ApiClient;
import io.delayq.server.testing.ApiClient.Reply;
import io.delayq.server.testing.ServerProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server whose clients create thousands of queues keeps a bounded heap, and so does its metrics
 * registry. Each test runs its own server (and embedded Redis), on a 256 MB heap that ends the
 * process on the first OutOfMemoryError rather than limping on.
 */
class ManyQueuesIT {
  private static final int QUEUES = 2_000;
  private static final List<String> SMALL_HEAP = List.of("-Xmx256m", "-XX:+ExitOnOutOfMemoryError");
  private static final Pattern SCHEDULED_SERIES = Pattern.compile("delayq_jobs_scheduled_total\\{queue=\"([^\"]+)\"}");

  @TempDir Path dataDir;

  @Test
  void twoThousandQueuesAtThePartitionCapFitInASmallHeapAcrossARestartAndKeepTheirMetricsBounded() throws Exception {
    try (ServerProcess server = ServerProcess.startEmbedded(SMALL_HEAP, dataDir)) {
      ApiClient api = new ApiClient(server.baseUrl());
      Reply over = api.put("/v1/queues/too-wide", Map.of("partitions", 65));
      assertError(over, 400, "invalid_request", "partitions");
      assertThat(over.json().path("detail").asText())
          .contains("at most 64 on this server; got 65")
          .contains("--max-partitions (DELAYQ_MAX_PARTITIONS)");
      assertThat(api.get("/v1/queues/too-wide").status()).as("the refused PUT created nothing").isEqualTo(404);

      createAndSchedule(api, 64);

      assertAnswering(api, server);
      JsonNode listed = api.get("/v1/queues").json();
      assertThat(listed).hasSize(QUEUES);
      assertThat(listed.get(0).path("partitions").asInt()).isEqualTo(64);

      // Series belong to the 200 queues used most recently, not to the first 200 seen: after
      // q-0 to q-249 are used in turn, q-50 to q-249 have them.
      for (int i = 0; i < 250; i++) {
        assertThat(api.post("/v1/queues/q-" + i + "/jobs", Map.of("payload", "again")).status()).isEqualTo(201);
      }
      assertThat(scheduledSeries(api)).hasSize(200).contains("q-50", "q-249").doesNotContain("q-49", "q-1999");
      assertThat(api.post("/v1/queues/q-0/jobs", Map.of("payload", "once more")).status()).isEqualTo(201);
      String metrics = api.get("/metrics").body();
      assertThat(metrics)
          .contains("delayq_jobs_scheduled_total{queue=\"q-0\"} 1.0")
          .contains("delayq_queue_jobs{queue=\"q-0\",state=\"scheduled\"} 3.0");
      assertThat(scheduledSeries(api)).hasSize(200).contains("q-0", "q-51").doesNotContain("q-50");
      assertThat(server.terminate(Duration.ofSeconds(30))).isZero();
    }
    try (ServerProcess restarted = ServerProcess.startEmbedded(SMALL_HEAP, dataDir)) {
      ApiClient api = new ApiClient(restarted.baseUrl());
      assertAnswering(api, restarted);
      assertThat(api.get("/v1/queues").json()).hasSize(QUEUES);
      JsonNode claimed = api.post("/v1/queues/q-1234/claim?max=10").json();
      assertThat(claimed).hasSize(1);
      assertThat(api.post("/v1/queues/q-1234/jobs/" + claimed.get(0).path("id").asText() + "/ack",
          Map.of("token", claimed.get(0).path("token").asText())).status()).isEqualTo(204);
    }
  }

  @Test
  void twoThousandQueuesOfTheLargestPartitionCountFitInASmallHeapAcrossARestart() throws Exception {
    // Before queue handles stopped holding every partition's keys, a 1024-partition queue cost the
    // server 0.65 MB for as long as its handle was cached: this ran out of heap a third of the way.
    try (ServerProcess server = ServerProcess.startEmbedded(SMALL_HEAP, dataDir, "--max-partitions", "1024")) {
      ApiClient api = new ApiClient(server.baseUrl());
      createAndSchedule(api, 1024);
      assertAnswering(api, server);
      assertThat(api.get("/v1/queues/q-1999").json().path("partitions").asInt()).isEqualTo(1024);
      assertThat(server.terminate(Duration.ofSeconds(30))).isZero();
    }
    try (ServerProcess restarted = ServerProcess.startEmbedded(SMALL_HEAP, dataDir, "--max-partitions", "1024")) {
      ApiClient api = new ApiClient(restarted.baseUrl());
      // every queue is opened again: its settings, then one schedule
      inParallel(i -> assertThat(api.post("/v1/queues/q-" + i + "/jobs", Map.of("payload", "after")).status())
          .as("q-%d", i).isEqualTo(201));
      assertAnswering(api, restarted);
      assertThat(api.get("/v1/queues/q-7").json().path("scheduled").asInt()).isEqualTo(2);
    }
  }

  /** {@code PUT /v1/queues/q-N {"partitions"}} and one schedule into it, for every N. */
  private static void createAndSchedule(ApiClient api, int partitions) throws Exception {
    inParallel(i -> {
      Reply created = api.put("/v1/queues/q-" + i, Map.of("partitions", partitions));
      assertThat(created.status()).as("PUT q-%d: %s", i, created).isEqualTo(200);
      Reply scheduled = api.post("/v1/queues/q-" + i + "/jobs", Map.of("id", "job-" + i, "payload", "x"));
      assertThat(scheduled.status()).as("schedule into q-%d: %s", i, scheduled).isEqualTo(201);
    });
  }

  /** Runs {@code call} for 0 to {@link #QUEUES} - 1, in order, on a few threads at once. */
  private static void inParallel(IntConsumer call) throws Exception {
    ExecutorService threads = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int first = t * (QUEUES / 4);
        done.add(threads.submit(() -> {
          for (int i = first; i < first + QUEUES / 4; i++) {
            call.accept(i);
          }
        }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      threads.shutdownNow();
    }
  }

  private static void assertAnswering(ApiClient api, ServerProcess server) {
    assertThat(server.isAlive()).as("server alive; output:%n%s", String.join("\n", server.output())).isTrue();
    Reply health = api.get("/health");
    assertThat(health.status()).as(health.toString()).isEqualTo(200);
    JsonNode queue = api.get("/v1/queues/q-" + (QUEUES - 1)).json();
    assertThat(queue.path("scheduled").asInt()).as(queue.toString()).isGreaterThanOrEqualTo(1);
    assertThat(String.join("\n", server.output())).doesNotContain("OutOfMemoryError");
  }

  private static List<String> scheduledSeries(ApiClient api) {
    Reply metrics = api.get("/metrics");
    assertThat(metrics.status()).isEqualTo(200);
    List<String> queues = new ArrayList<>();
    Matcher m = SCHEDULED_SERIES.matcher(metrics.body());
    while (m.find()) {
      queues.add(m.group(1));
    }
    return queues;
  }
}
