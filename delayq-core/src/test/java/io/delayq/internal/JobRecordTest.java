package io.delayq.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
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
  void refusesAnUnknownFormat() {
    assertThatThrownBy(() -> JobRecord.decode("3|r|5|0|x".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("unknown format");
    assertThatThrownBy(() -> JobRecord.decode("2|5|0|0|x".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(IllegalStateException.class);
  }
}
