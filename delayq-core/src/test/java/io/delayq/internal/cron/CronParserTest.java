package io.delayq.internal.cron;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delayq.InvalidRequestException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CronParserTest {
  private static final ZoneId UTC = ZoneOffset.UTC;

  /** The first {@code count} occurrences after {@code start} (UTC), as local date-times. */
  private static List<LocalDateTime> firstOccurrences(String expression, String start, int count) {
    Cron cron = Cron.parse(expression);
    List<LocalDateTime> result = new ArrayList<>();
    Instant cursor = LocalDateTime.parse(start).toInstant(ZoneOffset.UTC);
    for (int i = 0; i < count; i++) {
      cursor = cron.nextAfter(cursor, UTC);
      result.add(LocalDateTime.ofInstant(cursor, UTC));
    }
    return result;
  }

  private static List<LocalDateTime> times(String... localDateTimes) {
    List<LocalDateTime> result = new ArrayList<>();
    for (String text : localDateTimes) {
      result.add(LocalDateTime.parse(text));
    }
    return result;
  }

  private static InvalidRequestException refusal(String expression) {
    try {
      Cron.parse(expression);
    } catch (InvalidRequestException e) {
      assertThat(e.field()).isEqualTo("cron");
      return e;
    }
    throw new AssertionError("'" + expression + "' was accepted");
  }

  @Test
  void fiveFieldsStartAtMinuteAndSixFieldsAtSecond() {
    assertThat(firstOccurrences("5 3 * * *", "2026-01-01T00:00", 2))
        .isEqualTo(times("2026-01-01T03:05", "2026-01-02T03:05"));
    assertThat(firstOccurrences("7 5 3 * * *", "2026-01-01T00:00", 2))
        .isEqualTo(times("2026-01-01T03:05:07", "2026-01-02T03:05:07"));
  }

  @Test
  void spacesAndTabsAroundAndBetweenFieldsAreAccepted() {
    Cron cron = Cron.parse("  0\t12 *  * * ");
    assertThat(cron.expression()).isEqualTo("0\t12 *  * *");
    assertThat(firstOccurrences(cron.expression(), "2026-01-01T00:00", 1)).isEqualTo(times("2026-01-01T12:00"));
  }

  @Test
  void lineBreaksAndOtherControlCharactersAreRefusedNamingThem() {
    for (String bad : new String[] {"0 12 * * *\n", "0\n9 * * *", "0 9\u001f* * *", "0 9 * * *\r", "0\u00a09 * * *"}) {
      assertThatThrownBy(() -> Cron.parse(bad)).isInstanceOf(InvalidRequestException.class)
          .hasMessageContaining("separate the fields with spaces");
    }
  }

  @Test
  void listsRangesAndSteps() {
    assertThat(firstOccurrences("0,30 9-10 * * *", "2026-01-01T00:00", 5))
        .isEqualTo(times("2026-01-01T09:00", "2026-01-01T09:30", "2026-01-01T10:00", "2026-01-01T10:30", "2026-01-02T09:00"));
    assertThat(firstOccurrences("*/20 * * * *", "2026-01-01T00:00", 3))
        .isEqualTo(times("2026-01-01T00:20", "2026-01-01T00:40", "2026-01-01T01:00"));
    assertThat(firstOccurrences("10-30/10 0 * * *", "2026-01-01T00:00", 4))
        .isEqualTo(times("2026-01-01T00:10", "2026-01-01T00:20", "2026-01-01T00:30", "2026-01-02T00:10"));
    // a/n: from a to the end of the field, every n
    assertThat(firstOccurrences("45/5 0 * * *", "2026-01-01T00:00", 4))
        .isEqualTo(times("2026-01-01T00:45", "2026-01-01T00:50", "2026-01-01T00:55", "2026-01-02T00:45"));
    assertThat(firstOccurrences("0 0 */10 * *", "2026-01-01T00:00", 4))
        .isEqualTo(times("2026-01-11T00:00", "2026-01-21T00:00", "2026-01-31T00:00", "2026-02-01T00:00"));
    assertThat(firstOccurrences("0 0 1 */4 *", "2026-01-01T00:00", 3))
        .isEqualTo(times("2026-05-01T00:00", "2026-09-01T00:00", "2027-01-01T00:00"));
  }

  @Test
  void monthAndDayNamesInAnyCaseAlsoInRanges() {
    assertThat(firstOccurrences("0 0 1 jan,Jul *", "2026-01-01T00:00", 3))
        .isEqualTo(times("2026-07-01T00:00", "2027-01-01T00:00", "2027-07-01T00:00"));
    assertThat(firstOccurrences("0 0 1 feb-APR/2 *", "2026-01-01T00:00", 2))
        .isEqualTo(times("2026-02-01T00:00", "2026-04-01T00:00"));
    // 2026-01-01 is a Thursday
    assertThat(firstOccurrences("0 9 * * mon-WED", "2026-01-01T00:00", 4))
        .isEqualTo(times("2026-01-05T09:00", "2026-01-06T09:00", "2026-01-07T09:00", "2026-01-12T09:00"));
    // SUN ends a range as 7 and starts one as 0
    assertThat(firstOccurrences("0 9 * * SAT-SUN", "2026-01-01T00:00", 3))
        .isEqualTo(times("2026-01-03T09:00", "2026-01-04T09:00", "2026-01-10T09:00"));
    assertThat(firstOccurrences("0 9 * * SUN-SAT", "2026-01-01T00:00", 2))
        .isEqualTo(times("2026-01-01T09:00", "2026-01-02T09:00"));
  }

  @Test
  void sundayIsZeroAndSeven() {
    List<LocalDateTime> sundays = times("2026-01-04T09:00", "2026-01-11T09:00");
    assertThat(firstOccurrences("0 9 * * 0", "2026-01-01T00:00", 2)).isEqualTo(sundays);
    assertThat(firstOccurrences("0 9 * * 7", "2026-01-01T00:00", 2)).isEqualTo(sundays);
    assertThat(firstOccurrences("0 9 * * 5-7", "2026-01-01T00:00", 4))
        .isEqualTo(times("2026-01-02T09:00", "2026-01-03T09:00", "2026-01-04T09:00", "2026-01-09T09:00"));
    // */n on day-of-week steps over Sunday (0) to Saturday (6), as in Vixie cron
    assertThat(firstOccurrences("0 9 * * */2", "2026-01-01T00:00", 4))
        .isEqualTo(times("2026-01-01T09:00", "2026-01-03T09:00", "2026-01-04T09:00", "2026-01-06T09:00"));
  }

  @Test
  void questionMarkStandsForStarInDayFields() {
    assertThat(firstOccurrences("0 0 15 * ?", "2026-01-01T00:00", 2))
        .isEqualTo(times("2026-01-15T00:00", "2026-02-15T00:00"));
    assertThat(firstOccurrences("0 0 ? * MON", "2026-01-01T00:00", 1)).isEqualTo(times("2026-01-05T00:00"));
  }

  @ParameterizedTest
  @CsvSource({
    "@yearly, 0 0 1 1 *",
    "@annually, 0 0 1 1 *",
    "@monthly, 0 0 1 * *",
    "@weekly, 0 0 * * 0",
    "@daily, 0 0 * * *",
    "@midnight, 0 0 * * *",
    "@hourly, 0 * * * *",
    "@DAILY, 0 0 * * *"
  })
  void macrosAreTheirExpressions(String macro, String expression) {
    assertThat(firstOccurrences(macro, "2025-12-30T10:30", 5))
        .isEqualTo(firstOccurrences(expression, "2025-12-30T10:30", 5));
    assertThat(Cron.parse(macro).expression()).isEqualTo(macro);
  }

  @Test
  void leapDayFiresInLeapYearsOnly() {
    assertThat(firstOccurrences("0 0 29 2 *", "2097-01-01T00:00", 2))
        .isEqualTo(times("2104-02-29T00:00", "2108-02-29T00:00"));
  }

  @Test
  void noOccurrenceBeforeTheYear9999IsNull() {
    Cron leapDay = Cron.parse("0 0 29 2 *");
    assertThat(leapDay.nextAfter(Instant.parse("9996-03-01T00:00:00Z"), UTC)).isNull();
    assertThat(Cron.parse("* * * * *").nextAfter(Instant.MAX, UTC)).isNull();
    assertThat(Cron.parse("0 0 1 1 *").nextAfter(Instant.parse("9998-06-01T00:00:00Z"), UTC)).isNull();
  }

  @Test
  void nextIsStrictlyAfterAndIgnoresFractionsOfSeconds() {
    Cron everySecond = Cron.parse("* * * * * *");
    assertThat(everySecond.nextAfter(Instant.parse("2026-01-01T00:00:00Z"), UTC))
        .isEqualTo(Instant.parse("2026-01-01T00:00:01Z"));
    assertThat(everySecond.nextAfter(Instant.parse("2026-01-01T00:00:00.999Z"), UTC))
        .isEqualTo(Instant.parse("2026-01-01T00:00:01Z"));
    Cron daily = Cron.parse("0 12 * * *");
    assertThat(daily.nextAfter(Instant.parse("2026-01-01T12:00:00Z"), UTC))
        .isEqualTo(Instant.parse("2026-01-02T12:00:00Z"));
    assertThat(daily.nextAfter(Instant.parse("2026-01-01T11:59:59.999Z"), UTC))
        .isEqualTo(Instant.parse("2026-01-01T12:00:00Z"));
  }

  @Test
  void subHourlyMeansSeveralTimesEveryHour() {
    assertThat(Cron.parse("*/15 * * * *").isSubHourly()).isTrue();
    assertThat(Cron.parse("*/30 * * * * *").isSubHourly()).isTrue();
    assertThat(Cron.parse("0 0,30 * * * MON").isSubHourly()).isTrue();
    assertThat(Cron.parse("* * * * *").isSubHourly()).isTrue();
    assertThat(Cron.parse("0 * * * *").isSubHourly()).isFalse();
    assertThat(Cron.parse("@hourly").isSubHourly()).isFalse();
    assertThat(Cron.parse("*/15 9-17 * * *").isSubHourly()).isFalse();
    assertThat(Cron.parse("30 2 * * *").isSubHourly()).isFalse();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      value = {
        // expression | what the message must contain (field, token, problem)
        "0 25 * * * | field 2 (hour) '25' is out of range 0-23 in '0 25 * * *'; use a value from 0-23",
        "60 * * * * | field 1 (minute) '60' is out of range 0-59",
        "60 0 * * * * | field 1 (second) '60' is out of range 0-59",
        "0 0 0 * * | field 3 (day-of-month) '0' is out of range 1-31",
        "0 0 32 * * | field 3 (day-of-month) '32' is out of range 1-31",
        "0 0 * 13 * | field 4 (month) '13' is out of range 1-12",
        "0 0 * 0 * | field 4 (month) '0' is out of range 1-12",
        "0 0 * * 8 | field 5 (day-of-week) '8' is out of range 0-7",
        "0 0 * * 99999999999 | field 5 (day-of-week) '99999999999' is out of range 0-7",
        "0 0 * * 1-9 | field 5 (day-of-week) '1-9' is out of range 0-7",
        "0 0 * * 5-1 | field 5 (day-of-week) '5-1' is a reversed range (5 > 1)",
        "0 0 * * SAT-MON | field 5 (day-of-week) 'SAT-MON' is a reversed range (6 > 1)",
        "0 22-2 * * * | field 2 (hour) '22-2' is a reversed range (22 > 2) in '0 22-2 * * *'; write it from low to high, or as a list (e.g. 22-23,0-2)",
        "0 0 * DEC-JAN * | field 4 (month) 'DEC-JAN' is a reversed range (12 > 1)",
        "*/0 * * * * | field 1 (minute) '*/0' has the step 0",
        "*/61 * * * * | field 1 (minute) '*/61' has the step 61, larger than the field's 60 values",
        "*/x * * * * | field 1 (minute) '*/x' has the step 'x', which is not a number",
        "*/ * * * * | field 1 (minute) '*/' has the step '', which is not a number",
        "/5 * * * * | field 1 (minute) '/5' has no range before '/'",
        "1/2/3 * * * * | field 1 (minute) '1/2/3' has more than one '/'",
        "1,,2 * * * * | field 1 (minute) '1,,2' has an empty list item",
        "1, * * * * | field 1 (minute) '1,' has an empty list item",
        "0 ,3 * * * | field 2 (hour) ',3' has an empty list item",
        "1- * * * * | field 1 (minute) '1-' is not a range",
        "-1 * * * * | field 1 (minute) '-1' is not a range",
        "1-2-3 * * * * | field 1 (minute) '1-2-3' is not a range",
        "0 0 L * * | field 3 (day-of-month) 'L' uses 'L' (last day), which delayq does not support in '0 0 L * *'; write the days of month explicitly, or compute the last day from code",
        "0 0 L-3 * * | field 3 (day-of-month) 'L-3' uses 'L' (last day)",
        "0 0 LW * * | field 3 (day-of-month) 'LW' uses 'L' (last day)",
        "0 0 * * 5L | field 5 (day-of-week) '5L' uses 'L' (last day)",
        "0 0 15W * * | field 3 (day-of-month) '15W' uses 'W' (nearest weekday), which delayq does not support",
        "0 0 * * MON#2 | field 5 (day-of-week) 'MON#2' uses '#' (the n-th weekday of the month), which delayq does not support",
        "0 0 * * 6#3 | field 5 (day-of-week) '6#3' uses '#'",
        "0 0 * JANUARY * | field 4 (month) 'JANUARY' has 'JANUARY', which is not a number or a month name in '0 0 * JANUARY *'; use a number or a name, 1-12 or JAN-DEC",
        "0 0 * * MONDAY | field 5 (day-of-week) 'MONDAY' has 'MONDAY', which is not a number or a day-of-week name in '0 0 * * MONDAY'; use a number or a name, 0-7 or SUN-SAT",
        "0 MON * * * | field 2 (hour) 'MON' has 'MON', which is not a number in '0 MON * * *'; use a number from 0-23",
        "0 0 * JAN-FOO * | field 4 (month) 'JAN-FOO' has 'FOO'",
        "? * * * * | field 1 (minute) '?' uses '?', which only day-of-month and day-of-week accept",
        "0 0 ?/2 * * | field 3 (day-of-month) '?/2' uses '?' inside a list, range or step",
        "0 0 1,? * * | field 3 (day-of-month) '?' uses '?' inside a list, range or step",
        "0 0 * * 1.5 | field 5 (day-of-week) '1.5' has the unexpected character '.'",
        "0 0 * * +1 | field 5 (day-of-week) '+1' has the unexpected character '+'",
        "0 0 1 * MON | field 3 (day-of-month) '1' and field 5 (day-of-week) 'MON' are both restricted in '0 0 1 * MON'; cron implementations disagree on what that means (Vixie cron fires when either matches, Spring and Quartz only when both do), so delayq accepts neither: restrict one of them and put * (or ?) in the other",
        "0 0 0 1-7 * 1 | field 4 (day-of-month) '1-7' and field 6 (day-of-week) '1' are both restricted",
        "0 0 */2 * 0-7 | field 3 (day-of-month) '*/2' and field 5 (day-of-week) '0-7' are both restricted",
        "0 0 30 2 * | field 3 (day-of-month) '30' never occurs in field 4 (month) '2' in '0 0 30 2 *', so the schedule would never fire",
        "0 0 31 APR,JUN,SEP,NOV * | field 3 (day-of-month) '31' never occurs in field 4 (month) 'APR,JUN,SEP,NOV'",
        "0 0 0 30-31 FEB ? | field 4 (day-of-month) '30-31' never occurs in field 5 (month) 'FEB'",
      })
  void refusesWithAMessageNamingFieldAndToken(String expression, String expectedMessagePart) {
    assertThat(refusal(expression)).hasMessageContaining(expectedMessagePart);
  }

  @Test
  void refusesWrongFieldCounts() {
    assertThat(refusal("* * * *"))
        .hasMessage(
            "cron: '* * * *' has 4 fields; write 5 fields (minute hour day-of-month month day-of-week) or 6"
                + " (second minute hour day-of-month month day-of-week), e.g. '0 3 * * *' for 03:00 every day");
    assertThat(refusal("0 0 0 * * * 2026")).hasMessageContaining("'0 0 0 * * * 2026' has 7 fields");
    assertThat(refusal("*")).hasMessageContaining("'*' has 1 field;");
  }

  @Test
  void refusesMissingEmptyAndOverlongExpressions() {
    assertThatThrownBy(() -> Cron.parse(null))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageStartingWith("cron: is missing; write 5 fields");
    assertThat(refusal("   ")).hasMessageStartingWith("cron: is empty; write 5 fields");
    String overlong = "0 0 1 1 " + "1,".repeat(200) + "1";
    assertThat(refusal(overlong)).hasMessageStartingWith("cron: is 409 characters long; the limit is 256");
  }

  @Test
  void refusesUnknownMacros() {
    assertThat(refusal("@reboot"))
        .hasMessageStartingWith(
            "cron: '@reboot' is not a known macro; use one of @yearly (@annually), @monthly, @weekly, @daily (@midnight), @hourly");
    assertThat(refusal("@daily 5")).hasMessageContaining("'@daily 5' is not a known macro");
  }

  @Test
  void namesAreNotTakenForLastOrWeekday() {
    // JUL contains an L and WED a W: names win over the unsupported-syntax checks
    assertThat(Cron.parse("0 0 1 JUL *").nextAfter(Instant.parse("2026-01-01T00:00:00Z"), UTC))
        .isEqualTo(Instant.parse("2026-07-01T00:00:00Z"));
    assertThat(Cron.parse("0 0 * * WED").nextAfter(Instant.parse("2026-01-01T00:00:00Z"), UTC))
        .isEqualTo(Instant.parse("2026-01-07T00:00:00Z"));
  }

  @Test
  void hostileInputIsRefusedQuickly() {
    List<String> hostile =
        List.of(
            "*/1,".repeat(63) + "1 * * * *",
            "1-" + "9".repeat(250) + " * * * *",
            "-".repeat(256),
            ",".repeat(100) + " * * * *",
            "0 0 " + "1-31/1,".repeat(30) + "1 * *");
    long started = System.nanoTime();
    for (int round = 0; round < 1000; round++) {
      for (String text : hostile) {
        try {
          Cron.parse(text);
        } catch (InvalidRequestException expected) {
          // refusal is the point; the time it took is checked below
        }
      }
    }
    assertThat((System.nanoTime() - started) / 1_000_000).as("ms for 5000 hostile parses").isLessThan(2000);
  }
}
