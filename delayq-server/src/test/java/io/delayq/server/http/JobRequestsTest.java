package io.delayq.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.DuplicatePolicy;
import io.delayq.InvalidRequestException;
import io.delayq.JobRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class JobRequestsTest {

  @Test
  void readsEveryField() {
    JobRequest job =
        parse("{\"id\":\"order-42\",\"payload\":\"héllo\",\"delayMs\":1500,\"maxAttempts\":3,\"onDuplicate\":\"keep\"}")
            .resolve(() -> 9);
    assertThat(job.id()).isEqualTo("order-42");
    assertThat(job.payload()).isEqualTo("héllo".getBytes(StandardCharsets.UTF_8));
    assertThat(job.delay()).isEqualTo(Duration.ofMillis(1500));
    assertThat(job.runAt()).isNull();
    assertThat(job.maxAttempts()).isEqualTo(3);
    assertThat(job.onDuplicate()).isEqualTo(DuplicatePolicy.KEEP);
  }

  @Test
  void leavesMaxAttemptsToTheQueueDefaultAndReadsRunAtBothWays() {
    JobRequest job = parse("{\"payloadBase64\":\"AP8=\",\"runAt\":\"2026-12-01T09:00:00Z\"}").resolve(() -> 9);
    assertThat(job.payload()).containsExactly(0, 255);
    assertThat(job.runAt()).isEqualTo(Instant.parse("2026-12-01T09:00:00Z"));
    assertThat(job.maxAttempts()).isEqualTo(9);
    assertThat(parse("{\"payload\":\"\",\"runAt\":1700000000000}").resolve(() -> 1).runAt())
        .isEqualTo(Instant.ofEpochMilli(1_700_000_000_000L));
    assertThat(parse("{\"payload\":\"x\",\"id\":null,\"delayMs\":null}").resolve(() -> 1).id()).isNull();
  }

  @Test
  void refusalsNameTheFieldTheRuleAndTheValue() {
    assertRefused("{\"payload\":\"x\",\"delayMs\":-5}", "delayMs", "delayMs: must be between 0 and 31536000000000; got -5");
    assertRefused("{\"payload\":\"x\",\"delayMs\":99999999999999999999}", "delayMs",
        "delayMs: must be between 0 and 31536000000000; got 99999999999999999999");
    assertRefused("{\"payload\":\"x\",\"delayMs\":1.5}", "delayMs",
        "delayMs: must be a whole number between 0 and 31536000000000; got 1.5");
    assertRefused("{\"payload\":\"x\",\"delayMs\":\"5\"}", "delayMs",
        "delayMs: must be a whole number between 0 and 31536000000000; got \"5\"");
    assertRefused("{\"payload\":\"x\",\"runAt\":-1}", "runAt", "runAt: must be between 0 and 253402300799999; got -1");
    assertRefused("{\"payload\":\"x\",\"runAt\":\"tomorrow\"}", "runAt",
        "runAt: must be epoch milliseconds or an ISO-8601 instant like 2026-12-01T09:00:00Z; got \"tomorrow\"");
    assertRefused("{\"payload\":\"x\",\"runAt\":\"1969-12-31T23:59:59Z\"}", "runAt", "must be between 1970-01-01T00:00:00Z");
    assertRefused("{\"payload\":\"x\",\"delayMs\":5,\"runAt\":6}", "delayMs", "delayMs: and runAt were both given");
    assertRefused("{\"delayMs\":5}", "payload", "payload: is missing; give payload");
    assertRefused("{\"payload\":\"x\",\"payloadBase64\":\"eA==\"}", "payload", "were both given");
    assertRefused("{\"payload\":{\"k\":\"\\ud800\"}}", "payload", "lone surrogate \\ud800 at index 0");
    assertRefused("{\"payloadBase64\":\"eA\"}", "payloadBase64", "not a multiple of 4");
    assertRefused("{\"payloadBase64\":\"not base64!\"}", "payloadBase64", "is not valid base64");
    assertRefused("{\"payload\":\"\\ud800\"}", "payload", "lone surrogate \\ud800 at index 0");
    assertRefused("{\"payload\":\"x\",\"maxAttempts\":0}", "maxAttempts", "maxAttempts: must be between 1 and 1000; got 0");
    assertRefused("{\"payload\":\"x\",\"onDuplicate\":\"merge\"}", "onDuplicate",
        "onDuplicate: must be \"replace\" or \"keep\"; got \"merge\"");
    assertRefused("{\"payload\":\"x\",\"delay\":5}", "delay", "delay: is not a field of this call; allowed: delayMs, id,");
    assertRefused("{\"payload\":\"x\",\"id\":\"" + "i".repeat(257) + "\"}", "id", "id: is 257 bytes in UTF-8; the limit is 256");
    assertRefused("{\"payload\":\"x\",\"id\":\"\"}", "id", "id: is empty");
    assertRefused("[1]", "body", "body: must be a JSON object; got an array of 1");
  }

  @Test
  void refusesPayloadsOverTheCoreLimit() {
    String big = "x".repeat(BodyLimits.PAYLOAD_BYTES + 1);
    assertRefused("{\"payload\":\"" + big + "\"}", "payload", "payload: is 1,048,577 bytes; the limit is 1,048,576");
  }

  @Test
  void batchElementsArePrefixedWithTheirIndex() {
    JsonNode element = Json.parse("{\"payload\":\"x\",\"id\":\"\"}".getBytes(StandardCharsets.UTF_8));
    assertThatThrownBy(() -> JobRequests.parse(element, "[3]", "[3]."))
        .isInstanceOfSatisfying(InvalidRequestException.class, e -> {
          assertThat(e.field()).isEqualTo("[3].id");
          assertThat(e.getMessage()).startsWith("[3].id: is empty");
        });
    JsonNode negative = Json.parse("{\"payload\":\"x\",\"delayMs\":-1}".getBytes(StandardCharsets.UTF_8));
    assertThatThrownBy(() -> JobRequests.parse(negative, "[0]", "[0]."))
        .hasMessage("[0].delayMs: must be between 0 and 31536000000000; got -1");
    assertThatThrownBy(() -> JobRequests.parse(Json.parse("3".getBytes(StandardCharsets.UTF_8)), "[7]", "[7]."))
        .hasMessage("[7]: must be a JSON object; got 3");
  }

  private static JobRequests.Parsed parse(String json) {
    return JobRequests.parse(Json.parse(json.getBytes(StandardCharsets.UTF_8)), "body", "");
  }

  private static void assertRefused(String json, String field, String message) {
    assertThatThrownBy(() -> parse(json).resolve(() -> 5))
        .isInstanceOfSatisfying(InvalidRequestException.class, e -> {
          assertThat(e.field()).as(json).isEqualTo(field);
          assertThat(e.getMessage()).as(json).contains(message);
        });
  }
}
