package io.delayq.server.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.TypeConversionException;

class ConvertersTest {
  private final Converters.DelayConverter delay = new Converters.DelayConverter();
  private final Converters.IntervalConverter interval = new Converters.IntervalConverter();
  private final Converters.InstantConverter instant = new Converters.InstantConverter();

  @Test
  void readsDelaysTheWayPeopleWriteThem() {
    assertThat(delay.convert("500ms")).isEqualTo(Duration.ofMillis(500));
    assertThat(delay.convert("30s")).isEqualTo(Duration.ofSeconds(30));
    assertThat(delay.convert("5m")).isEqualTo(Duration.ofMinutes(5));
    assertThat(delay.convert("1h")).isEqualTo(Duration.ofHours(1));
    assertThat(delay.convert("2d")).isEqualTo(Duration.ofDays(2));
    assertThat(delay.convert("1h30m")).isEqualTo(Duration.ofMinutes(90));
    assertThat(delay.convert("0s")).isEqualTo(Duration.ZERO);
    assertThat(delay.convert("PT30S")).isEqualTo(Duration.ofSeconds(30));
    assertThat(delay.convert("pt1.5s")).isEqualTo(Duration.ofMillis(1500));
  }

  @Test
  void refusesWhatIsNotADelayAndSaysHowToWriteOne() {
    for (String bad : new String[] {"30", "5 parsecs", "1.5h", "", "s", "-5s"}) {
      assertThatThrownBy(() -> delay.convert(bad))
          .as(bad)
          .isInstanceOf(TypeConversionException.class)
          .hasMessageContaining("30s, 5m, 1h");
    }
    assertThatThrownBy(() -> delay.convert("-PT5S")).hasMessageContaining("negative");
  }

  @Test
  void aNumberTooLargeForADurationIsRefusedWithItsOwnMessage() {
    for (String huge : new String[] {"99999999999999999999d", "9223372036854775807d", "PT99999999999999999999H"}) {
      assertThatThrownBy(() -> delay.convert(huge)).as(huge)
          .isInstanceOf(TypeConversionException.class)
          .hasMessageContaining("too large")
          .hasMessageNotContaining("Exception");
      assertThatThrownBy(() -> interval.convert(huge)).as(huge).hasMessageContaining("too large");
    }
  }

  @Test
  void anIntervalIsWrittenAsADelayAndANegativeOneGetsAdviceForIntervals() {
    assertThat(interval.convert("1h30m")).isEqualTo(Duration.ofMinutes(90));
    assertThat(interval.convert("PT5M")).isEqualTo(Duration.ofMinutes(5));
    for (String negative : new String[] {"-5m", "-PT5M", "PT-5M", " -1s"}) {
      assertThatThrownBy(() -> interval.convert(negative)).as(negative)
          .isInstanceOf(TypeConversionException.class)
          .hasMessageContaining("negative")
          .hasMessageContaining("30s, 5m")
          .hasMessageNotContaining("--at");
    }
    assertThatThrownBy(() -> interval.convert("5 parsecs")).hasMessageContaining("not a length of time");
  }

  @Test
  void readsInstantsInUtcOrWithAnOffset() {
    assertThat(instant.convert("2026-12-01T09:00:00Z")).isEqualTo(Instant.parse("2026-12-01T09:00:00Z"));
    assertThat(instant.convert("2026-12-01T10:00:00+01:00")).isEqualTo(Instant.parse("2026-12-01T09:00:00Z"));
    assertThatThrownBy(() -> instant.convert("tomorrow")).hasMessageContaining("2026-12-01T09:00:00Z");
  }
}
