package io.delayq.internal.cron;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.Objects;

/**
 * A parsed cron expression and its occurrences in a time zone.
 *
 * <p>Grammar: 5 fields (minute hour day-of-month month day-of-week) or 6 (second first), or one of the
 * macros {@code @yearly @annually @monthly @weekly @daily @midnight @hourly}; see docs/SCHEDULES.md.
 * Day-of-month and day-of-week may not both be restricted.
 *
 * <p>Occurrences match local wall-clock time in the zone. Daylight saving time: a local time that does
 * not exist (a spring-forward gap) runs once, at the instant the gap ends; several such times in one gap
 * are that one instant. A local time that exists twice (a fall-back overlap) runs once, at its first
 * instant, unless the expression {@linkplain #isSubHourly() is sub-hourly}: then it runs at both, so
 * the schedule keeps following elapsed time through the repeated hour.
 *
 * <p>Immutable and thread-safe. {@link #nextAfter} skips whole months, days, hours and minutes that
 * cannot match, so a yearly expression costs a handful of steps, not a scan.
 */
public final class Cron {
  /** Occurrences are searched up to, not including, this local time. */
  private static final LocalDateTime SEARCH_END = LocalDateTime.of(9999, 1, 1, 0, 0);
  // why: beyond this no local time before SEARCH_END can follow, in any offset (offsets are within 18 h)
  private static final Instant LAST_START = SEARCH_END.toInstant(ZoneOffset.UTC).plusSeconds(18 * 3600);
  private static final Instant FIRST_START = LocalDateTime.of(1, 1, 1, 0, 0).toInstant(ZoneOffset.UTC);
  private static final int ALL_HOURS = (1 << 24) - 1;

  private final String expression;
  private final long seconds; // bits 0-59
  private final long minutes; // bits 0-59
  private final int hours; // bits 0-23
  private final long daysOfMonth; // bits 1-31
  private final int months; // bits 1-12
  private final int daysOfWeek; // bits 0-6, 0 = Sunday
  private final boolean subHourly;

  Cron(String expression, long seconds, long minutes, int hours, long daysOfMonth, int months, int daysOfWeek) {
    this.expression = expression;
    this.seconds = seconds;
    this.minutes = minutes;
    this.hours = hours;
    this.daysOfMonth = daysOfMonth;
    this.months = months;
    this.daysOfWeek = daysOfWeek;
    this.subHourly = Long.bitCount(seconds) * Long.bitCount(minutes) > 1 && hours == ALL_HOURS;
  }

  /**
   * Parses a cron expression.
   *
   * @throws io.delayq.InvalidRequestException (field {@code "cron"}) naming the bad field and token
   *     and saying what to write instead
   */
  public static Cron parse(String expression) {
    return CronParser.parse(expression);
  }

  /**
   * The first occurrence strictly after {@code after} in {@code zone}, following the daylight saving
   * rule of the class comment; {@code null} when there is none before the year 9999. Occurrences
   * before the year 1 are not considered.
   */
  public Instant nextAfter(Instant after, ZoneId zone) {
    Objects.requireNonNull(after, "after");
    ZoneRules rules = Objects.requireNonNull(zone, "zone").getRules();
    if (after.isAfter(LAST_START)) {
      return null;
    }
    Instant segmentStart =
        after.isBefore(FIRST_START) ? FIRST_START : after.truncatedTo(ChronoUnit.SECONDS).plusSeconds(1);
    // A segment is a stretch of time with one offset; local time runs without jumps inside it.
    ZoneOffset offset = rules.getOffset(segmentStart);
    LocalDateTime from = LocalDateTime.ofEpochSecond(segmentStart.getEpochSecond(), 0, offset);
    ZoneOffsetTransition current = rules.getTransition(from);
    LocalDateTime repeatedUntil =
        current != null && current.isOverlap() && offset.equals(current.getOffsetAfter())
            ? current.getDateTimeBefore()
            : null;
    while (from.isBefore(SEARCH_END)) {
      if (repeatedUntil != null && !subHourly && from.isBefore(repeatedUntil)) {
        // why: the local times up to repeatedUntil already ran at their first, earlier-offset instant
        from = repeatedUntil;
      }
      ZoneOffsetTransition next = rules.nextTransition(segmentStart);
      LocalDateTime segmentEnd =
          next == null || next.getDateTimeBefore().isAfter(SEARCH_END) ? SEARCH_END : next.getDateTimeBefore();
      LocalDateTime match = nextMatch(from, segmentEnd);
      if (match != null) {
        return match.toInstant(offset);
      }
      if (next == null || segmentEnd == SEARCH_END) {
        return null;
      }
      if (next.isGap() && nextMatch(next.getDateTimeBefore(), next.getDateTimeAfter()) != null) {
        return next.getInstant();
      }
      segmentStart = next.getInstant();
      offset = next.getOffsetAfter();
      from = next.getDateTimeAfter();
      repeatedUntil = next.isOverlap() ? next.getDateTimeBefore() : null;
    }
    return null;
  }

  /**
   * True when the expression fires more than once per hour (several seconds or minutes per hour, every
   * hour): such schedules follow real elapsed time in a fall-back overlap.
   */
  public boolean isSubHourly() {
    return subHourly;
  }

  /** The expression as given (trimmed). */
  public String expression() {
    return expression;
  }

  @Override
  public String toString() {
    return expression;
  }

  /** The first local time at or after {@code from} and before {@code limit} that matches, or null. */
  private LocalDateTime nextMatch(LocalDateTime from, LocalDateTime limit) {
    long limitKey = key(limit.getYear(), limit.getMonthValue(), limit.getDayOfMonth(), limit.getHour(), limit.getMinute(), limit.getSecond());
    int year = from.getYear();
    int month = from.getMonthValue();
    int day = from.getDayOfMonth();
    int hour = from.getHour();
    int minute = from.getMinute();
    int second = from.getSecond();
    while (key(year, month, day, hour, minute, second) < limitKey) {
      int m = nextBit(months, month);
      if (m < 0) {
        year++;
        month = 1;
        day = 1;
        hour = minute = second = 0;
        continue;
      }
      if (m != month) {
        month = m;
        day = 1;
        hour = minute = second = 0;
      }
      int length = LocalDate.of(year, month, 1).lengthOfMonth();
      int d = nextDay(year, month, day, length);
      if (d < 0) {
        if (++month > 12) {
          month = 1;
          year++;
        }
        day = 1;
        hour = minute = second = 0;
        continue;
      }
      if (d != day) {
        day = d;
        hour = minute = second = 0;
      }
      int h = nextBit(hours, hour);
      if (h < 0) {
        day++; // nextDay copes with a day past the end of the month
        hour = minute = second = 0;
        continue;
      }
      if (h != hour) {
        hour = h;
        minute = second = 0;
      }
      int mi = nextBit(minutes, minute);
      if (mi < 0) {
        hour++; // nextBit copes with hour 24: no bit, next day
        minute = second = 0;
        continue;
      }
      if (mi != minute) {
        minute = mi;
        second = 0;
      }
      int s = nextBit(seconds, second);
      if (s < 0) {
        minute++;
        second = 0;
        continue;
      }
      if (key(year, month, day, hour, minute, s) >= limitKey) {
        return null;
      }
      return LocalDateTime.of(year, month, day, hour, minute, s);
    }
    return null;
  }

  /** The first day from {@code day} to the end of the month whose day of month and of week match, or -1. */
  private int nextDay(int year, int month, int day, int length) {
    if (day > length) {
      return -1;
    }
    int firstWeekday = LocalDate.of(year, month, 1).getDayOfWeek().getValue() % 7;
    for (int d = day; d <= length; d++) {
      if ((daysOfMonth & (1L << d)) != 0 && (daysOfWeek & (1 << ((firstWeekday + d - 1) % 7))) != 0) {
        return d;
      }
    }
    return -1;
  }

  private static int nextBit(long bits, int from) {
    if (from > 63) {
      return -1;
    }
    long candidates = bits & (-1L << from);
    return candidates == 0 ? -1 : Long.numberOfTrailingZeros(candidates);
  }

  /** Orders local date-times field by field; every multiplier exceeds the field's largest value. */
  private static long key(int year, int month, int day, int hour, int minute, int second) {
    return (((((long) year * 13 + month) * 33 + day) * 25 + hour) * 61 + minute) * 61 + second;
  }
}
