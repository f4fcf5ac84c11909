package io.delayq.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class FormatTest {
  @Test
  void durationsReadLikeSpeech() {
    assertThat(Format.duration(Duration.ofMillis(450))).isEqualTo("450ms");
    assertThat(Format.duration(Duration.ofMillis(12_340))).isEqualTo("12.3s");
    assertThat(Format.duration(Duration.ofMinutes(5))).isEqualTo("5m 0s");
    assertThat(Format.duration(Duration.ofMinutes(125))).isEqualTo("2h 5m");
    assertThat(Format.duration(Duration.ofHours(76))).isEqualTo("3d 4h");
  }

  @Test
  void instantsSayHowFarAwayTheyAre() {
    Instant now = Instant.parse("2026-11-30T07:00:00Z");
    assertThat(Format.instant(now.plusSeconds(90), now)).isEqualTo("2026-11-30T07:01:30Z (in 1m 30s)");
    assertThat(Format.instant(now.minusMillis(3_000), now)).isEqualTo("2026-11-30T06:59:57Z (3.0s ago)");
    assertThat(Format.instant(null, now)).isEqualTo("-");
  }

  @Test
  void abbreviatesToTheFirstLine() {
    assertThat(Format.abbreviate("short", 60)).isEqualTo("short");
    assertThat(Format.abbreviate("first\nsecond", 60)).isEqualTo("first...");
    assertThat(Format.abbreviate("x".repeat(70), 10)).isEqualTo("xxxxxxx...");
    assertThat(Format.abbreviate(null, 10)).isEmpty();
  }

  @Test
  void redactsPasswords() {
    assertThat(Format.redact("redis://user:secret@host:6379/0")).isEqualTo("redis://***@host:6379/0");
    assertThat(Format.redact("redis://host:6379")).isEqualTo("redis://host:6379");
  }

  @Test
  void tablesAlignTextLeftAndNumbersRight() {
    String table = Format.table(List.of("QUEUE", "DUE", "PAUSED"),
        List.of(List.of("orders", "12", "no"), List.of("a", "3", "yes")), 1);
    assertThat(table.lines()).containsExactly(
        "QUEUE   DUE  PAUSED",
        "orders   12  no",
        "a         3  yes");
  }

  @Test
  void pathSegmentsAreEncodedWhole() {
    assertThat(HttpBackend.segment("order 42/a+b%")).isEqualTo("order%2042%2Fa%2Bb%25");
    assertThat(HttpBackend.segment("ns:orders.v1_x-y~")).isEqualTo("ns:orders.v1_x-y~");
    assertThat(HttpBackend.segment("é")).isEqualTo("%C3%A9");
  }
}
