package io.delayq.server.web;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;

/** How pages show times, durations and counts. Times are UTC, to the second. */
public final class Formats {
  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss'Z'").withZone(ZoneOffset.UTC);

  private Formats() {}

  /** {@code 2026-05-01 12:30:00Z}, or "—" for none. */
  public static String time(Instant at) {
    return at == null ? "—" : TIME.format(at.truncatedTo(ChronoUnit.SECONDS));
  }

  /** The instant as ISO-8601 for a {@code datetime} attribute, or "". */
  public static String iso(Instant at) {
    return at == null ? "" : at.truncatedTo(ChronoUnit.MILLIS).toString();
  }

  /** {@code in 4m 10s} or {@code 2h 3m ago}, relative to {@code now}; "—" for none. */
  public static String relative(Instant at, Instant now) {
    if (at == null) {
      return "—";
    }
    Duration d = Duration.between(now, at);
    return d.isNegative() ? duration(d.negated()) + " ago" : "in " + duration(d);
  }

  /** {@code 3d 4h}, {@code 2h 5m}, {@code 4m 10s}, {@code 12s}, {@code 350ms}. */
  public static String duration(Duration d) {
    long ms = d.toMillis();
    if (ms < 1000) {
      return ms + "ms";
    }
    long s = d.toSeconds();
    if (s < 60) {
      return s + "s";
    }
    if (s < 3600) {
      return (s / 60) + "m " + (s % 60) + "s";
    }
    if (s < 86400) {
      return (s / 3600) + "h " + (s % 3600 / 60) + "m";
    }
    return (s / 86400) + "d " + (s % 86400 / 3600) + "h";
  }

  /** {@code 1,234,567}. */
  public static String count(long n) {
    return String.format(java.util.Locale.ROOT, "%,d", n);
  }
}
