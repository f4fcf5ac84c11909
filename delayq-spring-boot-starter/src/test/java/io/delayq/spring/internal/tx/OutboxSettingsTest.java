package io.delayq.spring.internal.tx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class OutboxSettingsTest {

  @Test
  void tableNamesAreOneOrTwoPlainIdentifiers() {
    assertThat(OutboxSettings.checkTableName("delayq_outbox")).isEqualTo("delayq_outbox");
    assertThat(OutboxSettings.checkTableName("jobs.Outbox_2")).isEqualTo("jobs.Outbox_2");
    for (String bad : new String[] {"", "a.b.c", "1outbox", "out box", "outbox;", "\"outbox\"", ".outbox",
        "x".repeat(64)}) {
      assertThatThrownBy(() -> OutboxSettings.checkTableName(bad))
          .as(bad).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("'" + bad + "' is not allowed");
    }
    assertThatThrownBy(() -> OutboxSettings.checkTableName(null)).hasMessageContaining("is missing");
  }

  @Test
  void relaySettingsMustBePositiveAndTheBatchBounded() {
    assertThatThrownBy(() -> settings(Duration.ZERO, 10)).hasMessageContaining("gracePeriod must be a positive");
    assertThatThrownBy(() -> settings(Duration.ofSeconds(1), 0)).hasMessageContaining("between 1 and 1000; got 0");
    assertThat(settings(Duration.ofSeconds(1), 1000).bareTable()).isEqualTo("t");
  }

  private static OutboxSettings settings(Duration grace, int batch) {
    return new OutboxSettings("s.t", grace, Duration.ofSeconds(1), batch, OutboxSettings.Claim.AUTO,
        Duration.ofMinutes(5));
  }
}
