package io.delayq.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.server.testing.ApiClient;
import io.delayq.server.testing.ApiClient.Reply;
import io.delayq.server.testing.SharedServer;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code /metrics} after some traffic, and {@code /openapi.json}. */
class MetricsAndOpenApiIT {
  @RegisterExtension static final SharedServer server = new SharedServer();

  @Test
  void metricsCountJobsPerQueueWithLatenessAndDepth() {
    ApiClient api = server.api();
    String queue = "it-metrics-" + UUID.randomUUID().toString().substring(0, 8);
    String jobs = "/v1/queues/" + queue + "/jobs";
    api.put("/v1/queues/" + queue, Map.of("maxAttempts", 2));
    for (String id : new String[] {"a", "b", "c", "d"}) {
      assertThat(api.post(jobs, Map.of("id", id, "payload", "x")).status()).isEqualTo(201);
    }
    api.post(jobs, Map.of("id", "later", "payload", "x", "delayMs", 600_000));
    JsonNode claimed = api.post("/v1/queues/" + queue + "/claim?max=4").json();
    assertThat(claimed).hasSize(4);
    Map<String, String> tokens = new HashMap<>();
    claimed.forEach(job -> tokens.put(job.path("id").asText(), job.path("token").asText()));
    assertThat(api.post(jobs + "/a/ack", Map.of("token", tokens.get("a"))).status()).isEqualTo(204);
    assertThat(api.post(jobs + "/b/nack", Map.of("token", tokens.get("b"), "retryInMs", 600_000)).status()).isEqualTo(204);
    assertThat(api.post(jobs + "/c/nack", Map.of("token", tokens.get("c"), "retryInMs", 0)).status()).isEqualTo(204);
    JsonNode again = api.post("/v1/queues/" + queue + "/claim?waitMs=5000").json();
    assertThat(again.get(0).path("id").asText()).isEqualTo("c");
    assertThat(api.post(jobs + "/c/nack", Map.of("token", again.get(0).path("token").asText())).status()).isEqualTo(204);
    api.get(jobs + "/missing");

    Reply metrics = api.get("/metrics");
    assertThat(metrics.status()).isEqualTo(200);
    assertThat(metrics.header("Content-Type")).isEqualTo("text/plain; version=0.0.4; charset=utf-8");
    String text = metrics.body();
    String q = "queue=\"" + queue + "\"";
    assertThat(text)
        .contains("delayq_jobs_scheduled_total{" + q + "} 5.0")
        .contains("delayq_jobs_delivered_total{" + q + "} 5.0")
        .contains("delayq_jobs_acked_total{" + q + "} 1.0")
        .contains("delayq_jobs_retried_total{" + q + "} 2.0")
        .contains("delayq_jobs_dead_total{" + q + "} 1.0")
        .contains("delayq_job_lateness_seconds_count{" + q + "} 5")
        .contains("delayq_job_lateness_seconds_bucket{" + q + ",le=\"0.1\"}")
        .contains("delayq_job_lateness_seconds_bucket{" + q + ",le=\"+Inf\"} 5")
        .contains("delayq_queue_jobs{" + q + ",state=\"scheduled\"} 2.0")
        .contains("delayq_queue_jobs{" + q + ",state=\"active\"} 1.0")
        .contains("delayq_queue_jobs{" + q + ",state=\"expired\"} 0.0")
        .contains("delayq_queue_jobs{" + q + ",state=\"dead\"} 1.0")
        .contains("delayq_queue_jobs{" + q + ",state=\"due\"} 0.0")
        .contains("delayq_queue_paused{" + q + "} 0.0")
        .contains("delayq_redis_up 1.0")
        .contains("delayq_http_requests_seconds_count{method=\"POST\",route=\"/v1/queues/{queue}/jobs\",status=\"201\"}")
        .contains("delayq_http_requests_seconds_count{method=\"GET\",route=\"/v1/queues/{queue}/jobs/{id}\",status=\"404\"}")
        .contains("jvm_memory_used_bytes");
    assertThat(text).doesNotContain("route=\"/v1/queues/" + queue);
  }

  @Test
  void openApiDocumentParsesAndListsTheRoutes() {
    Reply reply = server.api().get("/openapi.json");
    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.header("Content-Type")).startsWith("application/json");
    JsonNode doc = reply.json();
    assertThat(doc.path("openapi").asText()).startsWith("3.0");
    assertThat(doc.at("/paths/~1v1~1queues~1{queue}~1jobs/post").isObject()).isTrue();
    assertThat(doc.at("/paths/~1v1~1queues~1{queue}~1claim/parameters").toString()).contains("waitMs");
    assertThat(doc.at("/paths/~1health/get/security").isArray()).isTrue();
    assertThat(doc.at("/components/securitySchemes/bearerAuth/type").asText()).isEqualTo("http");
    assertThat(doc.path("paths").size()).isGreaterThanOrEqualTo(15);
  }
}
