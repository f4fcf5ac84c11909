package io.delayq.server.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class DisplayTest {
  private static final Instant NOW = Instant.parse("2026-12-02T08:00:00Z");

  @Test
  void agoTellsTheLargestWholeUnit() {
    assertThat(Display.ago(NOW.minusSeconds(3), NOW)).isEqualTo("3 s ago");
    assertThat(Display.ago(NOW.minusSeconds(125), NOW)).isEqualTo("2 min ago");
    assertThat(Display.ago(NOW.minus(Duration.ofHours(5)), NOW)).isEqualTo("5 h ago");
    assertThat(Display.ago(NOW.minus(Duration.ofDays(3)), NOW)).isEqualTo("3 d ago");
    assertThat(Display.ago(NOW.minusMillis(300), NOW)).isEqualTo("just now");
    assertThat(Display.ago(NOW.plusSeconds(2), NOW)).as("a clock a little ahead").isEqualTo("just now");
    assertThat(Display.ago(null, NOW)).isEqualTo("—");
  }

  @Test
  void spanTellsUpToTwoUnits() {
    assertThat(Display.span(Duration.ofMinutes(90))).isEqualTo("1 h 30 min");
    assertThat(Display.span(Duration.ofDays(3).plusHours(4).plusMinutes(5))).isEqualTo("3 d 4 h");
    assertThat(Display.span(Duration.ofDays(1).plusMinutes(5))).as("no gap units").isEqualTo("1 d");
    assertThat(Display.span(Duration.ofSeconds(45))).isEqualTo("45 s");
    assertThat(Display.span(Duration.ofMillis(250))).isEqualTo("250 ms");
  }

  @Test
  void bytesInBinaryUnits() {
    assertThat(Display.bytes(512)).isEqualTo("512 B");
    assertThat(Display.bytes(1536 * 1024)).isEqualTo("1.5 MiB");
    assertThat(Display.bytes(1L << 30)).isEqualTo("1.0 GiB");
    assertThat(Display.bytes(-1)).isEqualTo("—");
  }

  @Test
  void instantsInAZoneCarryTheirOffset() {
    Instant at = Instant.parse("2026-07-01T07:00:00Z");
    assertThat(Display.inZone(at, ZoneId.of("Europe/Amsterdam"))).isEqualTo("Wed 2026-07-01 09:00:00 +02:00");
    assertThat(Display.inZoneBrief(at, ZoneId.of("Europe/Amsterdam"))).isEqualTo("Wed 07-01 09:00 +02:00");
    assertThat(Display.inZoneBrief(null, ZoneOffset.UTC)).isEqualTo("—");
    assertThat(Display.utc(at)).isEqualTo("2026-07-01 07:00:00 UTC");
  }

  @Test
  void controlAndBidiCharactersAreShownEscapedAndOtherTextAsItIs() {
    assertThat(Display.visible("invoice-\u202Efdp.exe")).isEqualTo("invoice-\\u202Efdp.exe");
    assertThat(Display.visible("a\u2066b\u2069c\u200Fd")).isEqualTo("a\\u2066b\\u2069c\\u200Fd");
    assertThat(Display.visible("bell\u0007 esc\u001B c1\u0085 cr\r")).isEqualTo("bell\\u0007 esc\\u001B c1\\u0085 cr\\u000D");
    assertThat(Display.visible("line\n\ttabbed, ünïcode, 日本, emoji \uD83D\uDE00")).isEqualTo("line\n\ttabbed, ünïcode, 日本, emoji \uD83D\uDE00");
    assertThat(Display.visible(null)).isNull();
  }

  @Test
  void aPayloadShownAsTextOrJsonHasItsBidiOverridesEscaped() {
    PayloadView text = PayloadView.of("pay \u202Eevil\u202C to".getBytes(java.nio.charset.StandardCharsets.UTF_8), false);
    assertThat(text.kind()).isEqualTo("text");
    assertThat(text.text()).isEqualTo("pay \\u202Eevil\\u202C to");
    PayloadView json = PayloadView.of("{\"to\":\"\u2067x\u0085\"}".getBytes(java.nio.charset.StandardCharsets.UTF_8), true);
    assertThat(json.kind()).isEqualTo("json");
    assertThat(json.text()).contains("\\u2067x\\u0085").doesNotContain("\u2067");
  }
}
