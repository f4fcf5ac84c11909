package io.delayq.server.web;

import io.delayq.InvalidRequestException;
import io.delayq.JobRequest;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads the dashboard's form fields, each refusal saying what was wrong and what to type instead. */
final class Inputs {
  private static final Pattern DELAY = Pattern.compile("(\\d{1,12})\\s*(ms|s|m|h|d)");
  /** The longest delay or distance in time a form may give; delayq-core refuses longer ones too. */
  static final Duration MAX_DELAY = Duration.ofDays(365L * 1000);

  private Inputs() {}

  /** A job id from the path, checked by the core's rule (1 to 256 UTF-8 bytes, printable). */
  static String jobId(String id) {
    try {
      JobRequest.of(new byte[0]).withId(id);
    } catch (InvalidRequestException e) {
      throw WebException.badRequest("the job id is not one delayq accepts: " + e.getMessage());
    }
    return id;
  }

  /**
   * A delay such as {@code 30s}, {@code 5m}, {@code 2h}, {@code 1d}, {@code 250ms}, or ISO-8601
   * ({@code PT90M}); zero or more, at most {@link #MAX_DELAY}.
   */
  static Duration delay(String field, String text) {
    String t = text.trim();
    Duration d;
    Matcher m = DELAY.matcher(t);
    try {
      if (m.matches()) {
        long n = Long.parseLong(m.group(1));
        d = switch (m.group(2)) {
          case "ms" -> Duration.ofMillis(n);
          case "s" -> Duration.ofSeconds(n);
          case "m" -> Duration.ofMinutes(n);
          case "h" -> Duration.ofHours(n);
          default -> Duration.ofDays(n);
        };
      } else if (t.startsWith("P") || t.startsWith("p")) {
        d = Duration.parse(t);
      } else {
        throw WebException.badRequest(field + " '" + abbreviate(t) + "' is not a delay: give a number and a unit,"
            + " such as 30s, 5m, 2h, 1d or 250ms (or ISO-8601, PT90M)");
      }
    } catch (ArithmeticException | DateTimeException e) {
      throw WebException.badRequest(field + " '" + abbreviate(t) + "' is too long; at most " + MAX_DELAY.toDays()
          + " days");
    }
    if (d.isNegative()) {
      throw WebException.badRequest(field + " must not be negative; got '" + abbreviate(t) + "'");
    }
    if (d.compareTo(MAX_DELAY) > 0) {
      throw WebException.badRequest(field + " '" + abbreviate(t) + "' is too long; at most " + MAX_DELAY.toDays()
          + " days");
    }
    return d;
  }

  /**
   * A point in time: ISO-8601 with an offset ({@code 2026-05-01T12:30:00Z}), or without one as the
   * browser's date-time field sends it ({@code 2026-05-01T12:30}), read as UTC.
   */
  static Instant instant(String field, String text) {
    String t = text.trim();
    try {
      return OffsetDateTime.parse(t).toInstant();
    } catch (DateTimeException withoutOffset) {
      try {
        return LocalDateTime.parse(t).toInstant(ZoneOffset.UTC);
      } catch (DateTimeException e) {
        throw WebException.badRequest(field + " '" + abbreviate(t) + "' is not a date and time: give ISO-8601 such"
            + " as 2026-05-01T12:30:00Z (without an offset it is read as UTC)");
      }
    }
  }

  /**
   * A job's new due time, read as {@link #instant}: from 1970-01-01T00:00:00Z on (delayq keeps due
   * times as epoch milliseconds) and at most {@link #MAX_DELAY} after {@code now}.
   */
  static Instant runAt(String field, String text, Instant now) {
    Instant at = instant(field, text);
    String range = "give a time from 1970-01-01T00:00:00Z to " + MAX_DELAY.toDays() + " days from now ("
        + now.plus(MAX_DELAY) + "); a time in the past makes the job due now";
    if (at.isBefore(Instant.EPOCH)) {
      throw WebException.badRequest(field + " " + abbreviate(text.trim()) + " is before 1970, the earliest time delayq"
          + " keeps: " + range);
    }
    if (Duration.between(now, at).compareTo(MAX_DELAY) > 0) {
      throw WebException.badRequest(field + " " + abbreviate(text.trim()) + " is too far away: " + range);
    }
    return at;
  }

  /** A whole number in {@code [min, max]}. */
  static long number(String field, String text, long min, long max) {
    try {
      long n = Long.parseLong(text.trim());
      if (n >= min && n <= max) {
        return n;
      }
    } catch (NumberFormatException e) {
      // below
    }
    throw WebException.badRequest(field + " must be a whole number from " + min + " to " + max + "; got '"
        + abbreviate(text) + "'");
  }

  static String abbreviate(String s) {
    return s.length() <= 64 ? s : s.substring(0, 61) + "...";
  }
}
