package io.delayq.server.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delayq.InvalidRequestException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class HistoryRangeTest {
  @Test
  void eachRangeHasItsBuckets() {
    assertThat(HistoryRange.parse(null)).isEqualTo(HistoryRange.HOUR);
    assertThat(HistoryRange.parse("1h").buckets()).isEqualTo(60);
    assertThat(HistoryRange.parse("24h").buckets()).isEqualTo(1440);
    assertThat(HistoryRange.parse("24h").width()).isEqualTo(Duration.ofMinutes(1));
    assertThat(HistoryRange.parse("7d").buckets()).isEqualTo(168);
    assertThat(HistoryRange.parse("7d").hourly()).isTrue();
  }

  @Test
  void anyOtherRangeIsRefusedWithTheChoices() {
    assertThatThrownBy(() -> HistoryRange.parse("30d"))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("1h, 24h or 7d")
        .hasMessageContaining("30d");
  }
}
