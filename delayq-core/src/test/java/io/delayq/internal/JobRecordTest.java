package io.delayq.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JobRecordTest {
  @Test
  void encodesAReadableHeaderBeforeThePayload() {
    byte[] stored = new JobRecord(5, 1_733_000_000_123L, true, "a|b".getBytes(StandardCharsets.UTF_8)).encode();
    assertThat(new String(stored, StandardCharsets.UTF_8)).isEqualTo("2|k|5|1733000000123|a|b");
    byte[] replace = new JobRecord(5, 7, false, new byte[0]).encode();
    assertThat(new String(replace, StandardCharsets.UTF_8)).isEqualTo("2|r|5|7|");
  }

  @Test
  void roundTripsAnyPayload() {
    byte[] payload = {0, '|', (byte) 0xff, '1', '|'};
    JobRecord decoded = JobRecord.decode(new JobRecord(1000, 0, true, payload).encode());
    assertThat(decoded.maxAttempts()).isEqualTo(1000);
    assertThat(decoded.createdMillis()).isZero();
    assertThat(decoded.keep()).isTrue();
    assertThat(decoded.payload()).isEqualTo(payload);
    assertThat(JobRecord.decode(new JobRecord(1, 7, false, new byte[0]).encode()).payload()).isEmpty();
  }

  @Test
  void marksAJsonPayloadAfterTheCreationTimeWhereNoScriptLooks() {
    byte[] stored = new JobRecord(5, 7, false, "{\"a\":1}".getBytes(StandardCharsets.UTF_8), true).encode();
    assertThat(new String(stored, StandardCharsets.UTF_8)).isEqualTo("2|r|5|7j|{\"a\":1}");
    JobRecord decoded = JobRecord.decode(stored);
    assertThat(decoded.json()).isTrue();
    assertThat(decoded.createdMillis()).isEqualTo(7);
    assertThat(new String(decoded.payload(), StandardCharsets.UTF_8)).isEqualTo("{\"a\":1}");
    assertThat(JobRecord.decode("2|k|5|7|j|".getBytes(StandardCharsets.UTF_8)).json()).isFalse();
  }

  @Test
  void readsTheRecordsOfDelayq01() {
    JobRecord old = JobRecord.decode("1|5|1733000000123|k|payload".getBytes(StandardCharsets.UTF_8));
    assertThat(old.maxAttempts()).isEqualTo(5);
    assertThat(old.keep()).isFalse();
    assertThat(new String(old.payload(), StandardCharsets.UTF_8)).isEqualTo("k|payload");
  }

  @Test
  void storesTraceHeadersInAVersion3RecordOnlyWhenThereAreAny() {
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
    headers.put("baggage", "user=a|b&c=d, x=%41");
    byte[] payload = "p|q".getBytes(StandardCharsets.UTF_8);
    byte[] stored = new JobRecord(5, 7, true, payload, true, TraceHeaders.of(headers)).encode();
    String text = new String(stored, StandardCharsets.UTF_8);
    assertThat(text).startsWith("3|k|5|7j|traceparent=00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01&baggage=")
        .endsWith("|p|q");
    // why: the trace field holds no separator, so the record still has exactly one more before the payload
    assertThat(text.chars().filter(c -> c == '|').count()).isEqualTo(5 + 1);

    JobRecord decoded = JobRecord.decode(stored);
    assertThat(decoded.trace().asMap()).containsExactlyEntriesOf(headers);
    assertThat(decoded.payload()).isEqualTo(payload);
    assertThat(decoded).extracting(JobRecord::maxAttempts, JobRecord::createdMillis, JobRecord::keep, JobRecord::json)
        .containsExactly(5, 7L, true, true);

    assertThat(new String(new JobRecord(5, 7, false, payload, false, TraceHeaders.of(Map.of())).encode(),
        StandardCharsets.UTF_8)).isEqualTo("2|r|5|7|p|q");
    assertThat(JobRecord.decode("2|r|5|7|p|q".getBytes(StandardCharsets.UTF_8)).trace().isEmpty()).isTrue();
  }

  @Test
  void dropsTraceHeadersLargerThanTheCapWhole() {
    String big = "x".repeat(TraceHeaders.MAX_BYTES);
    assertThat(TraceHeaders.of(Map.of("traceparent", "00-ab-cd-01", "baggage", big)).isEmpty()).isTrue();
    String fits = "x".repeat(TraceHeaders.MAX_BYTES - "b=".length());
    assertThat(TraceHeaders.of(Map.of("b", fits)).asMap()).containsEntry("b", fits);
    byte[] stored = new JobRecord(1, 0, false, new byte[0], false, TraceHeaders.of(Map.of("b", big))).encode();
    assertThat(new String(stored, StandardCharsets.UTF_8)).isEqualTo("2|r|1|0|");
  }

  @Test
  void aDamagedTraceFieldLeavesTheJobReadable() {
    JobRecord decoded = JobRecord.decode("3|r|5|7|%zz=1&=|payload".getBytes(StandardCharsets.UTF_8));
    assertThat(decoded.trace().isEmpty()).isTrue();
    assertThat(new String(decoded.payload(), StandardCharsets.UTF_8)).isEqualTo("payload");
  }

  @Test
  void refusesAnUnknownFormat() {
    assertThatThrownBy(() -> JobRecord.decode("4|r|5|0|x".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("unknown format");
    assertThatThrownBy(() -> JobRecord.decode("2|5|0|0|x".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(IllegalStateException.class);
  }
}
