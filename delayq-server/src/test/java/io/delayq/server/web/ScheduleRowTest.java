package io.delayq.server.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayq.Schedule;
import io.delayq.ScheduleInfo;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import org.junit.jupiter.api.Test;

class ScheduleRowTest {
  private static final ZoneId AMSTERDAM = ZoneId.of("Europe/Amsterdam");

  @Test
  void aCronScheduleListsItsNextFiveOccurrencesInItsZoneWithUtcBeside() {
    Instant next = Instant.parse("2026-12-03T08:00:00Z");
    ScheduleInfo info = new ScheduleInfo(
        Schedule.cron("daily-digest", "0 9 * * *").inZone(AMSTERDAM), next, "daily-digest@2026-12-03T08:00:00Z",
        Instant.parse("2026-12-02T08:00:00Z"), "daily-digest@2026-12-02T08:00:00Z", 12, 1, 3);

    ScheduleRow row = ScheduleRow.of("orders", info);

    assertThat(row.timing()).isEqualTo("cron 0 9 * * *");
    assertThat(row.zone()).isEqualTo("Europe/Amsterdam");
    assertThat(row.upcoming()).hasSize(5);
    assertThat(row.upcoming().get(0).local()).isEqualTo("Thu 2026-12-03 09:00:00 +01:00");
    assertThat(row.upcoming().get(0).utc()).isEqualTo("2026-12-03 08:00:00 UTC");
    assertThat(row.upcoming().get(0).iso()).isEqualTo("2026-12-03T08:00:00Z");
    assertThat(row.upcoming().get(0).brief()).isEqualTo("Thu 12-03 09:00 +01:00");
    assertThat(row.upcoming().get(4).local()).isEqualTo("Mon 2026-12-07 09:00:00 +01:00");
    assertThat(row.lastOutcome())
        .isEqualTo("Last fired Wed 2026-12-02 09:00:00 +01:00 as job daily-digest@2026-12-02T08:00:00Z; 12 fired, 1 skipped");
    assertThat(row.paused()).isFalse();
  }

  @Test
  void anIntervalScheduleThatNeverFired() {
    ScheduleInfo info = new ScheduleInfo(
        Schedule.every("tick", Duration.ofMinutes(90)), Instant.parse("2026-12-02T10:00:00Z"), "tick@x", null, null,
        0, 2, 1);

    ScheduleRow row = ScheduleRow.of("q", info);

    assertThat(row.timing()).isEqualTo("every 1 h 30 min");
    assertThat(row.zone()).isEqualTo("UTC");
    assertThat(row.upcoming()).extracting(ScheduleRow.Occurrence::iso)
        .containsExactly("2026-12-02T10:00:00Z", "2026-12-02T11:30:00Z", "2026-12-02T13:00:00Z",
            "2026-12-02T14:30:00Z", "2026-12-02T16:00:00Z");
    assertThat(row.lastOutcome()).isEqualTo("Not fired yet; 0 fired, 2 skipped");
  }

  @Test
  void pathsEncodeEverySegment() {
    ScheduleInfo info = new ScheduleInfo(
        Schedule.every("a:b.c", Duration.ofMinutes(1)).withPaused(true), null, null,
        Instant.parse("2026-12-02T10:00:00Z"), "a:b.c@2026-12-02T10:00:00Z~3", 1, 0, 1);

    ScheduleRow row = ScheduleRow.of("odd.queue:x", info);

    assertThat(row.paused()).isTrue();
    assertThat(row.pendingJobPath()).isNull();
    assertThat(row.actionPath("pause")).isEqualTo("/queues/odd.queue:x/schedules/a:b.c/pause");
    assertThat(row.lastJobPath()).isEqualTo("/queues/odd.queue:x/jobs/a:b.c%402026-12-02T10:00:00Z~3");
  }
}
