package io.delayq.internal.cron;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.ZoneId;
import java.time.zone.ZoneOffsetTransition;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * delayq's daylight saving rule at real transitions, with every expected instant written out. The
 * transitions are asserted first, so that a tzdata change shows up as that, not as a cron failure.
 */
class CronDstTest {
  private static final ZoneId AMSTERDAM = ZoneId.of("Europe/Amsterdam");
  private static final ZoneId NEW_YORK = ZoneId.of("America/New_York");
  private static final ZoneId SAO_PAULO = ZoneId.of("America/Sao_Paulo");
  private static final ZoneId CAIRO = ZoneId.of("Africa/Cairo");
  private static final ZoneId LORD_HOWE = ZoneId.of("Australia/Lord_Howe");

  /** Every occurrence after {@code from} and before {@code to}. */
  private static List<Instant> occurrences(String expression, ZoneId zone, String from, String to) {
    Cron cron = Cron.parse(expression);
    Instant end = Instant.parse(to);
    List<Instant> result = new ArrayList<>();
    Instant cursor = cron.nextAfter(Instant.parse(from), zone);
    while (cursor != null && cursor.isBefore(end)) {
      result.add(cursor);
      cursor = cron.nextAfter(cursor, zone);
    }
    return result;
  }

  private static List<Instant> instants(String... texts) {
    List<Instant> result = new ArrayList<>();
    for (String text : texts) {
      result.add(Instant.parse(text));
    }
    return result;
  }

  private static void assertTransition(ZoneId zone, String before, String expected) {
    ZoneOffsetTransition transition = zone.getRules().nextTransition(Instant.parse(before));
    assertThat(transition + " at " + transition.getInstant()).isEqualTo(expected);
  }

  // --- Europe/Amsterdam: 2026-03-29 02:00 -> 03:00 (01:00Z), 2026-10-25 03:00 -> 02:00 (01:00Z)

  @Test
  void amsterdamDailyInsideTheGapRunsAtTheGapEnd() {
    assertTransition(AMSTERDAM, "2026-03-01T00:00:00Z", "Transition[Gap at 2026-03-29T02:00+01:00 to +02:00] at 2026-03-29T01:00:00Z");
    assertThat(occurrences("30 2 * * *", AMSTERDAM, "2026-03-27T12:00:00Z", "2026-03-31T00:00:00Z"))
        .isEqualTo(
            instants(
                "2026-03-28T01:30:00Z", // 02:30 CET
                "2026-03-29T01:00:00Z", // 02:30 does not exist: 03:00 CEST, the end of the gap
                "2026-03-30T00:30:00Z")); // 02:30 CEST
  }

  @Test
  void amsterdamDailyInsideTheOverlapRunsOnceAtTheFirstInstant() {
    assertTransition(AMSTERDAM, "2026-10-01T00:00:00Z", "Transition[Overlap at 2026-10-25T03:00+02:00 to +01:00] at 2026-10-25T01:00:00Z");
    assertThat(occurrences("30 2 * * *", AMSTERDAM, "2026-10-23T12:00:00Z", "2026-10-27T00:00:00Z"))
        .isEqualTo(
            instants(
                "2026-10-24T00:30:00Z", // 02:30 CEST
                "2026-10-25T00:30:00Z", // the first 02:30 (CEST); the second (01:30Z, CET) does not run
                "2026-10-26T01:30:00Z")); // 02:30 CET
  }

  @Test
  void amsterdamQuarterHourlyFollowsElapsedTimeThroughTheOverlap() {
    List<Instant> repeatedHours = occurrences("*/15 * * * *", AMSTERDAM, "2026-10-24T23:59:59Z", "2026-10-25T02:00:00Z");
    // 02:00-02:59 CEST and 02:00-02:59 CET: two hours of real time, 8 runs
    assertThat(repeatedHours)
        .isEqualTo(
            instants(
                "2026-10-25T00:00:00Z", "2026-10-25T00:15:00Z", "2026-10-25T00:30:00Z", "2026-10-25T00:45:00Z",
                "2026-10-25T01:00:00Z", "2026-10-25T01:15:00Z", "2026-10-25T01:30:00Z", "2026-10-25T01:45:00Z"));
    assertThat(Cron.parse("*/15 * * * *").nextAfter(Instant.parse("2026-10-25T01:45:00Z"), AMSTERDAM))
        .isEqualTo(Instant.parse("2026-10-25T02:00:00Z")); // 03:00 CET
  }

  @Test
  void amsterdamQuarterHourlyRunsOnceInTheGap() {
    assertThat(occurrences("*/15 * * * *", AMSTERDAM, "2026-03-29T00:30:00Z", "2026-03-29T01:31:00Z"))
        .isEqualTo(
            instants(
                "2026-03-29T00:45:00Z", // 01:45 CET
                "2026-03-29T01:00:00Z", // 02:00-02:45 do not exist; with 03:00 CEST they are one run
                "2026-03-29T01:15:00Z",
                "2026-03-29T01:30:00Z"));
  }

  @Test
  void amsterdamHourlyIsNotSubHourlyAndRunsTheRepeatedHourOnce() {
    assertThat(occurrences("0 * * * *", AMSTERDAM, "2026-10-24T22:30:00Z", "2026-10-25T03:30:00Z"))
        .isEqualTo(
            instants(
                "2026-10-24T23:00:00Z", // 01:00 CEST
                "2026-10-25T00:00:00Z", // 02:00 CEST; 02:00 CET (01:00Z) is the same local time
                "2026-10-25T02:00:00Z", // 03:00 CET
                "2026-10-25T03:00:00Z"));
    assertThat(occurrences("0 * * * *", AMSTERDAM, "2026-03-28T23:30:00Z", "2026-03-29T02:30:00Z"))
        .isEqualTo(instants("2026-03-29T00:00:00Z", "2026-03-29T01:00:00Z", "2026-03-29T02:00:00Z"));
  }

  @Test
  void amsterdamSeveralTimesInOneGapAreOneRunMergedWithTheGapEnd() {
    // 02:00, 02:30 (in the gap) and 03:00 (its end) are one run; then 03:30
    assertThat(occurrences("0,30 2-3 * * *", AMSTERDAM, "2026-03-28T23:00:00Z", "2026-03-29T03:00:00Z"))
        .isEqualTo(instants("2026-03-29T01:00:00Z", "2026-03-29T01:30:00Z"));
    // every second of 02:00-02:59 is one run
    assertThat(occurrences("* * 2 * * *", AMSTERDAM, "2026-03-28T23:00:00Z", "2026-03-29T23:00:00Z"))
        .isEqualTo(instants("2026-03-29T01:00:00Z"));
    // and every second of the repeated 02:00-02:59 runs once, in CEST
    List<Instant> repeated = occurrences("* * 2 * * *", AMSTERDAM, "2026-10-24T23:00:00Z", "2026-10-25T23:00:00Z");
    assertThat(repeated).hasSize(3600);
    assertThat(repeated.get(0)).isEqualTo(Instant.parse("2026-10-25T00:00:00Z"));
    assertThat(repeated.get(3599)).isEqualTo(Instant.parse("2026-10-25T00:59:59Z"));
  }

  @Test
  void everySecondFollowsElapsedTimeAcrossBothTransitions() {
    Cron everySecond = Cron.parse("* * * * * *");
    assertThat(everySecond.nextAfter(Instant.parse("2026-03-29T00:59:59Z"), AMSTERDAM))
        .isEqualTo(Instant.parse("2026-03-29T01:00:00Z"));
    assertThat(occurrences("* * * * * *", AMSTERDAM, "2026-10-24T23:59:59Z", "2026-10-25T02:00:00Z")).hasSize(7200);
  }

  // --- America/New_York: 2026-03-08 02:00 -> 03:00 (07:00Z), 2026-11-01 02:00 -> 01:00 (06:00Z)

  @Test
  void newYorkDailyInTheGapAndTheOverlap() {
    assertTransition(NEW_YORK, "2026-03-01T00:00:00Z", "Transition[Gap at 2026-03-08T02:00-05:00 to -04:00] at 2026-03-08T07:00:00Z");
    assertTransition(NEW_YORK, "2026-10-01T00:00:00Z", "Transition[Overlap at 2026-11-01T02:00-04:00 to -05:00] at 2026-11-01T06:00:00Z");
    assertThat(occurrences("30 2 * * *", NEW_YORK, "2026-03-07T00:00:00Z", "2026-03-10T00:00:00Z"))
        .isEqualTo(instants("2026-03-07T07:30:00Z", "2026-03-08T07:00:00Z", "2026-03-09T06:30:00Z"));
    assertThat(occurrences("30 1 * * *", NEW_YORK, "2026-10-31T00:00:00Z", "2026-11-03T00:00:00Z"))
        .isEqualTo(instants("2026-10-31T05:30:00Z", "2026-11-01T05:30:00Z", "2026-11-02T06:30:00Z"));
  }

  @Test
  void newYorkQuarterHourlyThroughTheOverlap() {
    assertThat(occurrences("*/15 * * * *", NEW_YORK, "2026-11-01T04:59:59Z", "2026-11-01T07:00:00Z"))
        .isEqualTo(
            instants(
                "2026-11-01T05:00:00Z", "2026-11-01T05:15:00Z", "2026-11-01T05:30:00Z", "2026-11-01T05:45:00Z",
                "2026-11-01T06:00:00Z", "2026-11-01T06:15:00Z", "2026-11-01T06:30:00Z", "2026-11-01T06:45:00Z"));
    assertThat(occurrences("*/15 * * * *", NEW_YORK, "2026-03-08T06:30:00Z", "2026-03-08T07:20:00Z"))
        .isEqualTo(instants("2026-03-08T06:45:00Z", "2026-03-08T07:00:00Z", "2026-03-08T07:15:00Z"));
  }

  // --- America/Sao_Paulo: DST changed at midnight, so on 2018-11-04 the day started at 01:00

  @Test
  void saoPauloMidnightInTheMidnightGapRunsAtOneOClock() {
    assertTransition(SAO_PAULO, "2018-10-01T00:00:00Z", "Transition[Gap at 2018-11-04T00:00-03:00 to -02:00] at 2018-11-04T03:00:00Z");
    assertThat(occurrences("@daily", SAO_PAULO, "2018-11-02T12:00:00Z", "2018-11-06T12:00:00Z"))
        .isEqualTo(
            instants(
                "2018-11-03T03:00:00Z", // 00:00 -03
                "2018-11-04T03:00:00Z", // 00:00 does not exist: 01:00 -02
                "2018-11-05T02:00:00Z", // 00:00 -02
                "2018-11-06T02:00:00Z"));
    // 00:30 and 01:00 on that day are one run at 01:00
    assertThat(occurrences("0,30 0,1 * * *", SAO_PAULO, "2018-11-03T12:00:00Z", "2018-11-04T12:00:00Z"))
        .isEqualTo(instants("2018-11-04T03:00:00Z", "2018-11-04T03:30:00Z"));
  }

  @Test
  void saoPauloLateEveningInTheRepeatedHourBeforeMidnight() {
    assertTransition(SAO_PAULO, "2018-02-01T00:00:00Z", "Transition[Overlap at 2018-02-18T00:00-02:00 to -03:00] at 2018-02-18T02:00:00Z");
    // 23:00-23:59 on 2018-02-17 happened twice
    assertThat(occurrences("30 23 * * *", SAO_PAULO, "2018-02-16T12:00:00Z", "2018-02-19T12:00:00Z"))
        .isEqualTo(instants("2018-02-17T01:30:00Z", "2018-02-18T01:30:00Z", "2018-02-19T02:30:00Z"));
    assertThat(occurrences("@midnight", SAO_PAULO, "2018-02-16T12:00:00Z", "2018-02-19T12:00:00Z"))
        .isEqualTo(instants("2018-02-17T02:00:00Z", "2018-02-18T03:00:00Z", "2018-02-19T03:00:00Z"));
    assertThat(occurrences("*/30 * * * *", SAO_PAULO, "2018-02-18T00:59:59Z", "2018-02-18T03:00:00Z"))
        .isEqualTo(instants("2018-02-18T01:00:00Z", "2018-02-18T01:30:00Z", "2018-02-18T02:00:00Z", "2018-02-18T02:30:00Z"));
  }

  // --- Africa/Cairo: 2024-04-26 00:00 -> 01:00 (a midnight gap), 2024-11-01 00:00 -> 2024-10-31 23:00

  @Test
  void cairoMidnightGap() {
    assertTransition(CAIRO, "2024-04-01T00:00:00Z", "Transition[Gap at 2024-04-26T00:00+02:00 to +03:00] at 2024-04-25T22:00:00Z");
    assertThat(occurrences("0 0 * * *", CAIRO, "2024-04-24T12:00:00Z", "2024-04-27T12:00:00Z"))
        .isEqualTo(
            instants(
                "2024-04-24T22:00:00Z", // 2024-04-25 00:00 +02
                "2024-04-25T22:00:00Z", // 2024-04-26 00:00 does not exist: 01:00 +03
                "2024-04-26T21:00:00Z")); // 2024-04-27 00:00 +03
    // a Friday-only schedule at 00:15 still runs on that Friday
    assertThat(occurrences("15 0 * * FRI", CAIRO, "2024-04-20T00:00:00Z", "2024-05-04T00:00:00Z"))
        .isEqualTo(instants("2024-04-25T22:00:00Z", "2024-05-02T21:15:00Z"));
  }

  @Test
  void cairoRepeatedHourBeforeMidnight() {
    assertTransition(CAIRO, "2024-10-01T00:00:00Z", "Transition[Overlap at 2024-11-01T00:00+03:00 to +02:00] at 2024-10-31T21:00:00Z");
    assertThat(occurrences("30 23 * * *", CAIRO, "2024-10-30T12:00:00Z", "2024-11-02T12:00:00Z"))
        .isEqualTo(instants("2024-10-30T20:30:00Z", "2024-10-31T20:30:00Z", "2024-11-01T21:30:00Z"));
    assertThat(occurrences("0 0 * * *", CAIRO, "2024-10-30T12:00:00Z", "2024-11-02T12:00:00Z"))
        .isEqualTo(instants("2024-10-30T21:00:00Z", "2024-10-31T22:00:00Z", "2024-11-01T22:00:00Z"));
    assertThat(occurrences("*/15 * * * *", CAIRO, "2024-10-31T19:59:59Z", "2024-10-31T22:00:00Z")).hasSize(8);
  }

  // --- Australia/Lord_Howe: a 30-minute shift, +10:30 <-> +11:00 at 02:00

  @Test
  void lordHoweHalfHourGap() {
    assertTransition(LORD_HOWE, "2026-09-01T00:00:00Z", "Transition[Gap at 2026-10-04T02:00+10:30 to +11:00] at 2026-10-03T15:30:00Z");
    // 02:00 and 02:15 do not exist; they and 02:30 (+11) are one run
    assertThat(occurrences("*/15 * * * *", LORD_HOWE, "2026-10-03T15:00:00Z", "2026-10-03T16:00:00Z"))
        .isEqualTo(instants("2026-10-03T15:15:00Z", "2026-10-03T15:30:00Z", "2026-10-03T15:45:00Z"));
    assertThat(occurrences("15 2 * * *", LORD_HOWE, "2026-10-02T00:00:00Z", "2026-10-05T00:00:00Z"))
        .isEqualTo(instants("2026-10-02T15:45:00Z", "2026-10-03T15:30:00Z", "2026-10-04T15:15:00Z"));
  }

  @Test
  void lordHoweHalfHourOverlap() {
    assertTransition(LORD_HOWE, "2026-03-01T00:00:00Z", "Transition[Overlap at 2026-04-05T02:00+11:00 to +10:30] at 2026-04-04T15:00:00Z");
    // 01:30-01:59 happens twice
    assertThat(occurrences("*/15 * * * *", LORD_HOWE, "2026-04-04T14:15:00Z", "2026-04-04T15:45:00Z"))
        .isEqualTo(
            instants(
                "2026-04-04T14:30:00Z", // 01:30 +11
                "2026-04-04T14:45:00Z", // 01:45 +11
                "2026-04-04T15:00:00Z", // 01:30 +10:30
                "2026-04-04T15:15:00Z", // 01:45 +10:30
                "2026-04-04T15:30:00Z")); // 02:00 +10:30
    assertThat(occurrences("45 1 * * *", LORD_HOWE, "2026-04-03T00:00:00Z", "2026-04-06T00:00:00Z"))
        .isEqualTo(instants("2026-04-03T14:45:00Z", "2026-04-04T14:45:00Z", "2026-04-05T15:15:00Z"));
  }

  @Test
  void startingInsideTheSecondPassOfTheOverlap() {
    // from 02:10 CET (the second 02:10), a daily 02:30 has already run today at 02:30 CEST
    assertThat(Cron.parse("30 2 * * *").nextAfter(Instant.parse("2026-10-25T01:10:00Z"), AMSTERDAM))
        .isEqualTo(Instant.parse("2026-10-26T01:30:00Z"));
    // a sub-hourly one continues in the second pass
    assertThat(Cron.parse("*/15 * * * *").nextAfter(Instant.parse("2026-10-25T01:10:00Z"), AMSTERDAM))
        .isEqualTo(Instant.parse("2026-10-25T01:15:00Z"));
  }

  @Test
  void yearlyScheduleAcrossManyTransitionsIsCheap() {
    Cron yearly = Cron.parse("@yearly");
    long started = System.nanoTime();
    Instant cursor = Instant.parse("1970-01-01T00:00:00Z");
    int count = 0;
    for (Instant next = yearly.nextAfter(cursor, AMSTERDAM); next != null; next = yearly.nextAfter(next, AMSTERDAM)) {
      cursor = next;
      count++;
    }
    long millis = (System.nanoTime() - started) / 1_000_000;
    assertThat(count).isEqualTo(9999 - 1971);
    assertThat(cursor).isEqualTo(Instant.parse("9997-12-31T23:00:00Z")); // 9998-01-01 00:00 CET
    // why: a minute-by-minute scan would take hours here; skipping by field takes milliseconds
    assertThat(millis).as("ms for 8,028 yearly occurrences").isLessThan(3000);
  }
}
