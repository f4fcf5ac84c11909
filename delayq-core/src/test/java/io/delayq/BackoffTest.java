package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;

class BackoffTest {
  @Test
  void growsExponentiallyUpToTheCap() {
    Backoff backoff = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(10), 2.0, 0.0);
    Random random = new Random(1);
    assertThat(backoff.delayAfter(1, random)).isEqualTo(Duration.ofSeconds(1));
    assertThat(backoff.delayAfter(2, random)).isEqualTo(Duration.ofSeconds(2));
    assertThat(backoff.delayAfter(4, random)).isEqualTo(Duration.ofSeconds(8));
    assertThat(backoff.delayAfter(5, random)).isEqualTo(Duration.ofSeconds(10));
    assertThat(backoff.delayAfter(500, random)).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void jitterSpreadsWithinTheFraction() {
    Backoff backoff = new Backoff(Duration.ofSeconds(10), Duration.ofMinutes(10), 2.0, 0.2);
    Random random = new Random(42);
    long min = Long.MAX_VALUE;
    long max = 0;
    for (int i = 0; i < 1000; i++) {
      long ms = backoff.delayAfter(1, random).toMillis();
      min = Math.min(min, ms);
      max = Math.max(max, ms);
    }
    assertThat(min).isBetween(8_000L, 8_300L);
    assertThat(max).isBetween(11_700L, 12_000L);
  }

  @Test
  void refusesNonsense() {
    assertThatThrownBy(() -> new Backoff(Duration.ofSeconds(5), Duration.ofSeconds(1), 2, 0))
        .isInstanceOf(InvalidRequestException.class).hasMessageContaining("initial <= max");
    assertThatThrownBy(() -> new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(1), 0.5, 0))
        .hasMessageContaining("multiplier");
    assertThatThrownBy(() -> new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(1), 2, 1.5))
        .hasMessageContaining("jitter");
  }
}
