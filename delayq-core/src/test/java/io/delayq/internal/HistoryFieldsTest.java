package io.delayq.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayq.HistoryBucket;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HistoryFieldsTest {
  private static final long MINUTE = 60_000;

  @Test
  void anInstantFallsInTheMinuteAndHourThatStartAtOrBeforeIt() {
    long t = Instant.parse("2024-03-05T10:59:59.999Z").toEpochMilli();
    assertThat(HistoryFields.epochMinute(t) * MINUTE).isEqualTo(Instant.parse("2024-03-05T10:59:00Z").toEpochMilli());
    assertThat(HistoryFields.epochMinute(t + 1) * MINUTE).isEqualTo(Instant.parse("2024-03-05T11:00:00Z").toEpochMilli());
    assertThat(HistoryFields.epochHour(t) * 60 * MINUTE).isEqualTo(Instant.parse("2024-03-05T10:00:00Z").toEpochMilli());
    assertThat(HistoryFields.hourOfMinute(HistoryFields.epochMinute(t))).isEqualTo(HistoryFields.epochHour(t));
    assertThat(HistoryFields.epochMinute(-1)).as("before the epoch rounds down").isEqualTo(-1);
    assertThat(HistoryFields.firstOf(100, 1)).isEqualTo(100);
    assertThat(HistoryFields.firstOf(100, 1440)).isEqualTo(100 - 1439);
  }

  @Test
  void bucketsAreKeptLongerThanTheLongestReadAsksFor() {
    assertThat(HistoryFields.MINUTE_TTL_MILLIS).isGreaterThan(HistoryFields.MAX_MINUTES * MINUTE);
    assertThat(HistoryFields.HOUR_TTL_MILLIS).isGreaterThan(HistoryFields.MAX_HOURS * 60 * MINUTE);
  }

  @Test
  void aDrainTakesEachCountOnce() {
    HistoryCounts counts = new HistoryCounts();
    assertThat(counts.drain()).isNull();
    counts.add(HistoryCounts.SCHEDULED, 3);
    counts.add(HistoryCounts.ACKED, 0);
    counts.addLateness(17);
    long[] taken = counts.drain();
    assertThat(HistoryCounts.arguments(taken)).extracting(b -> new String(b, StandardCharsets.UTF_8))
        .containsExactly("s", "3", "l17", "1");
    assertThat(counts.drain()).isNull();
    counts.add(HistoryCounts.SCHEDULED, 1);
    assertThat(HistoryCounts.arguments(counts.drain())).extracting(b -> new String(b, StandardCharsets.UTF_8))
        .containsExactly("s", "1");
  }

  @Test
  void aBucketIsDecodedFromItsShortFieldsAndForeignFieldsCountAsNothing() {
    Map<byte[], byte[]> raw = new HashMap<>();
    put(raw, "s", "5");
    put(raw, "d", "4");
    put(raw, "a", "3");
    put(raw, "r", "2");
    put(raw, "x", "1");
    put(raw, "l0", "3");
    put(raw, "l17", "1");
    put(raw, "l99", "7");
    put(raw, "c:8f00aa11bb22cc33", "12");
    put(raw, "lx", "7");
    put(raw, "other", "7");
    put(raw, "d2", "not a number");
    Instant start = Instant.parse("2024-03-05T10:59:00Z");
    HistoryBucket b = HistoryFields.decode(start, HistoryFields.MINUTE, raw);
    assertThat(new long[] {b.scheduled(), b.delivered(), b.acked(), b.retried(), b.dead()}).containsExactly(5, 4, 3, 2, 1);
    assertThat(b.lateness().count()).isEqualTo(4);
    assertThat(b.end()).isEqualTo(Instant.parse("2024-03-05T11:00:00Z"));
    HistoryBucket none = HistoryFields.decode(start, HistoryFields.HOUR, null);
    assertThat(none.scheduled()).isZero();
    assertThat(none.lateness().count()).isZero();
  }

  private static void put(Map<byte[], byte[]> raw, String field, String value) {
    raw.put(field.getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8));
  }
}
