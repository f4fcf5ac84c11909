package io.delayq.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class JobRecordTest {
  @Test
  void encodesAReadableHeaderBeforeThePayload() {
    byte[] stored = new JobRecord(5, 1_733_000_000_123L, "a|b".getBytes(StandardCharsets.UTF_8)).encode();
    assertThat(new String(stored, StandardCharsets.UTF_8)).isEqualTo("1|5|1733000000123|a|b");
  }

  @Test
  void roundTripsAnyPayload() {
    byte[] payload = {0, '|', (byte) 0xff, '1', '|'};
    JobRecord decoded = JobRecord.decode(new JobRecord(1000, 0, payload).encode());
    assertThat(decoded.maxAttempts()).isEqualTo(1000);
    assertThat(decoded.createdMillis()).isZero();
    assertThat(decoded.payload()).isEqualTo(payload);
    assertThat(JobRecord.decode(new JobRecord(1, 7, new byte[0]).encode()).payload()).isEmpty();
  }

  @Test
  void refusesAnUnknownFormat() {
    assertThatThrownBy(() -> JobRecord.decode("2|5|0|x".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("unknown format");
  }
}
