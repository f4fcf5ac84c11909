package io.delayq.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.Delayq;
import io.delayq.JobQueue;
import io.delayq.JobRequest;
import io.delayq.LeasedJob;
import io.delayq.server.testing.ApiClient;
import io.delayq.server.testing.ApiClient.Reply;
import io.delayq.server.testing.SharedServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A payload may be any JSON value and comes back as that value; a string stays a string; bytes
 * travel as strict base64; and the rule holds between Java and HTTP in both directions.
 */
class PayloadsIT {
  @RegisterExtension static final SharedServer server = new SharedServer();

  private ApiClient api;
  private String queue;

  @BeforeEach
  void setUp() {
    api = server.api();
    queue = "it-payloads-" + UUID.randomUUID().toString().substring(0, 8);
  }

  @Test
  void anyJsonValueRoundTripsAsThatValueAndAStringStaysAString() throws Exception {
    String batch = "[{\"id\":\"object\",\"payload\":{\"order\":42,\"items\":[1,2,{\"sku\":\"a\"}]}},"
        + "{\"id\":\"number\",\"payload\":42.5},{\"id\":\"bool\",\"payload\":true},{\"id\":\"null\",\"payload\":null},"
        + "{\"id\":\"array\",\"payload\":[\"x\",1]},{\"id\":\"string\",\"payload\":\"42\"},"
        + "{\"id\":\"text-of-json\",\"payload\":\"{\\\"order\\\":42}\"}]";
    Reply scheduled = api.send("POST", "/v1/queues/" + queue + "/jobs:batch", "application/json",
        batch.getBytes(StandardCharsets.UTF_8));
    assertThat(scheduled.status()).as(scheduled.toString()).isEqualTo(201);

    JsonNode object = api.get("/v1/queues/" + queue + "/jobs/object").json().path("payload");
    assertThat(object.isObject()).isTrue();
    assertThat(object.path("order").asInt()).isEqualTo(42);
    assertThat(object.at("/items/2/sku").asText()).isEqualTo("a");
    assertThat(api.get("/v1/queues/" + queue + "/jobs/number").json().path("payload").isNumber()).isTrue();
    assertThat(api.get("/v1/queues/" + queue + "/jobs/bool").json().path("payload").asBoolean()).isTrue();
    assertThat(api.get("/v1/queues/" + queue + "/jobs/null").json().get("payload").isNull()).isTrue();
    JsonNode string = api.get("/v1/queues/" + queue + "/jobs/string").json().path("payload");
    assertThat(string.isTextual()).isTrue();
    assertThat(string.asText()).isEqualTo("42");
    assertThat(api.get("/v1/queues/" + queue + "/jobs/text-of-json").json().path("payload").asText())
        .isEqualTo("{\"order\":42}");

    JsonNode claimed = api.post("/v1/queues/" + queue + "/claim?max=10").json();
    assertThat(claimed).hasSize(7);
    for (JsonNode job : claimed) {
      JsonNode payload = job.path("payload");
      switch (job.path("id").asText()) {
        case "object" -> assertThat(payload.path("items").size()).isEqualTo(3);
        case "array" -> assertThat(payload.isArray()).isTrue();
        case "string", "text-of-json" -> assertThat(payload.isTextual()).isTrue();
        case "number" -> assertThat(payload.asDouble()).isEqualTo(42.5);
        default -> assertThat(payload.isValueNode()).isTrue();
      }
    }
  }

  @Test
  void aJavaWorkerSeesTheJsonTextAndAJavaProducersJsonIsAValueOverHttp() throws Exception {
    assertThat(api.post("/v1/queues/" + queue + "/jobs", Map.of("id", "from-http", "payload", Map.of("order", 7))).status())
        .isEqualTo(201);
    try (Delayq delayq = Delayq.connect(server.process().redisUrl())) {
      JobQueue jobs = delayq.queue(queue);
      jobs.schedule(JobRequest.ofJson("{\"order\":8}").withId("from-java"));
      jobs.schedule(JobRequest.of("{\"order\":9}").withId("text-from-java"));
      List<LeasedJob> leased = jobs.pull().claim(1, Duration.ofSeconds(30));
      // from-http was scheduled first, so it is due first
      assertThat(leased).singleElement().satisfies(job -> {
        assertThat(job.id()).isEqualTo("from-http");
        assertThat(job.payloadIsJson()).isTrue();
        assertThat(job.payloadAsString()).isEqualTo("{\"order\":7}");
      });
      jobs.pull().ack(leased.get(0).id(), leased.get(0).token());
    }
    assertThat(api.get("/v1/queues/" + queue + "/jobs/from-java").json().at("/payload/order").asInt()).isEqualTo(8);
    assertThat(api.get("/v1/queues/" + queue + "/jobs/text-from-java").json().path("payload").asText())
        .isEqualTo("{\"order\":9}");
  }

  @Test
  void numbersComeBackAsTheSameNumberHoweverLargeOrPrecise() {
    String body = "[{\"id\":\"huge\",\"payload\":1e400},{\"id\":\"precise\",\"payload\":0.10000000000000000000000001},"
        + "{\"id\":\"long\",\"payload\":{\"n\":123456789012345678901234567890.5}}]";
    assertThat(api.send("POST", "/v1/queues/" + queue + "/jobs:batch", "application/json",
        body.getBytes(StandardCharsets.UTF_8)).status()).isEqualTo(201);
    JsonNode huge = api.get("/v1/queues/" + queue + "/jobs/huge").json().path("payload");
    assertThat(huge.isNumber()).as(huge.toString()).isTrue();
    assertThat(huge.decimalValue()).isEqualByComparingTo(new java.math.BigDecimal("1e400"));
    assertThat(api.get("/v1/queues/" + queue + "/jobs/precise").json().path("payload").decimalValue())
        .isEqualByComparingTo(new java.math.BigDecimal("0.10000000000000000000000001"));
    assertThat(api.get("/v1/queues/" + queue + "/jobs/long").json().at("/payload/n").decimalValue())
        .isEqualByComparingTo(new java.math.BigDecimal("123456789012345678901234567890.5"));
  }

  @Test
  void base64IsDecodedStrictly() {
    Reply padded = api.post("/v1/queues/" + queue + "/jobs", Map.of("id", "bytes", "payloadBase64", "AP8="));
    assertThat(padded.status()).isEqualTo(201);
    assertThat(api.get("/v1/queues/" + queue + "/jobs/bytes").json().path("payloadBase64").asText()).isEqualTo("AP8=");
    // unpadded input once replaced the job with the same bytes; now it is refused and the job stays
    Reply unpadded = api.post("/v1/queues/" + queue + "/jobs", Map.of("id", "bytes", "payloadBase64", "AP9"));
    assertThat(unpadded.status()).isEqualTo(400);
    assertThat(unpadded.json().path("detail").asText()).contains("not a multiple of 4");
    Reply strayBits = api.post("/v1/queues/" + queue + "/jobs", Map.of("id", "bytes", "payloadBase64", "AP9="));
    assertThat(strayBits.status()).isEqualTo(400);
    assertThat(strayBits.json().path("detail").asText()).contains("not canonical");
    assertThat(api.get("/v1/queues/" + queue + "/jobs/bytes").json().path("payloadBase64").asText()).isEqualTo("AP8=");
  }

  @Test
  void aLoneSurrogateInsideAJsonPayloadIsRefused() {
    Reply refused = api.send("POST", "/v1/queues/" + queue + "/jobs", "application/json",
        "{\"payload\":{\"name\":\"a\\ud800\"}}".getBytes(StandardCharsets.UTF_8));
    assertThat(refused.status()).as(refused.toString()).isEqualTo(400);
    assertThat(refused.json().path("field").asText()).isEqualTo("payload");
  }
}
