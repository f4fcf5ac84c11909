package io.delayq.server.web;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * How the dashboard pages write times, durations and sizes for people: one place, so that every
 * page reads alike. Every method takes what it formats whole and returns plain text (the templates
 * escape it).
 */
public final class Display {
  private static final DateTimeFormatter LOCAL =
      DateTimeFormatter.ofPattern("EEE yyyy-MM-dd HH:mm:ss xxx", Locale.ROOT);
  private static final DateTimeFormatter BRIEF =
      DateTimeFormatter.ofPattern("EEE MM-dd HH:mm xxx", Locale.ROOT);
  private static final DateTimeFormatter UTC =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'", Locale.ROOT).withZone(ZoneOffset.UTC);
  private static final String[] BYTE_UNITS = {"B", "KiB", "MiB", "GiB", "TiB"};

  private Display() {}

  /** An instant in a zone, with the weekday and the zone's offset: {@code Wed 2026-12-02 09:00:00 +01:00}. */
  public static String inZone(Instant at, ZoneId zone) {
    return at == null ? "—" : LOCAL.format(at.atZone(zone));
  }

  /**
   * An instant in a zone, short enough for one line of a list: {@code Wed 12-02 09:00 +01:00} (no
   * year, no seconds; pair it with {@link #utc} on hover); a dash for none.
   */
  public static String inZoneBrief(Instant at, ZoneId zone) {
    return at == null ? "—" : BRIEF.format(at.atZone(zone));
  }

  /** An instant in UTC, to the second: {@code 2026-12-02 08:00:00 UTC}; a dash for none. */
  public static String utc(Instant at) {
    return at == null ? "—" : UTC.format(at);
  }

  /**
   * How long ago {@code at} was, seen at {@code now}, in its largest whole unit: {@code 3 s ago},
   * {@code 5 min ago}, {@code 2 h ago}, {@code 4 d ago}; {@code just now} under a second (or for a
   * moment a little ahead of {@code now}, as clocks of two machines differ).
   */
  public static String ago(Instant at, Instant now) {
    if (at == null) {
      return "—";
    }
    long seconds = Duration.between(at, now).getSeconds();
    if (seconds < 1) {
      return "just now";
    }
    return compact(Duration.ofSeconds(seconds)) + " ago";
  }

  /** A duration in its largest whole unit: {@code 3 s}, {@code 5 min}, {@code 2 h}, {@code 4 d}; ms under a second. */
  public static String compact(Duration duration) {
    if (duration == null) {
      return "—";
    }
    long seconds = duration.getSeconds();
    if (seconds < 1) {
      return duration.toMillis() + " ms";
    }
    if (seconds < 60) {
      return seconds + " s";
    }
    if (seconds < 3600) {
      return seconds / 60 + " min";
    }
    if (seconds < 86_400) {
      return seconds / 3600 + " h";
    }
    return seconds / 86_400 + " d";
  }

  /**
   * A duration in up to two units, for uptimes and intervals: {@code 3 d 4 h}, {@code 1 h 30 min},
   * {@code 45 s}, {@code 250 ms}.
   */
  public static String span(Duration duration) {
    if (duration == null) {
      return "—";
    }
    if (duration.getSeconds() < 1) {
      return duration.toMillis() + " ms";
    }
    long[] amounts = {duration.toDaysPart(), duration.toHoursPart(), duration.toMinutesPart(), duration.toSecondsPart()};
    String[] units = {"d", "h", "min", "s"};
    StringBuilder out = new StringBuilder();
    int shown = 0;
    for (int i = 0; i < amounts.length && shown < 2; i++) {
      if (amounts[i] > 0) {
        out.append(out.length() == 0 ? "" : " ").append(amounts[i]).append(' ').append(units[i]);
        shown++;
      } else if (shown > 0) {
        break;
      }
    }
    return out.toString();
  }

  /**
   * Text as it may be shown without deceiving: C0 and C1 control characters (but the line feed and
   * the tab), bidirectional-text controls (U+202A–U+202E, U+2066–U+2069, the marks U+200E,
   * U+200F, U+061C), line and paragraph separators, zero-width characters and the byte-order mark
   * are written as a backslash, {@code u} and four hex digits, so that an id or payload with a right-to-left override cannot
   * display as another. HTML escaping is still the template's.
   */
  public static String visible(String text) {
    if (text == null) {
      return null;
    }
    StringBuilder out = null;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (deceptive(c)) {
        if (out == null) {
          out = new StringBuilder(text.length() + 16).append(text, 0, i);
        }
        out.append(String.format(Locale.ROOT, "\\u%04X", (int) c));
      } else if (out != null) {
        out.append(c);
      }
    }
    return out == null ? text : out.toString();
  }

  private static boolean deceptive(char c) {
    return (c < 0x20 && c != '\n' && c != '\t') || (c >= 0x7F && c <= 0x9F)
        || (c >= '\u202A' && c <= '\u202E') || (c >= '\u2066' && c <= '\u2069')
        || c == '\u200E' || c == '\u200F' || c == '\u061C' || c == '\u2028' || c == '\u2029'
        || c == '\u200B' || c == '\u200C' || c == '\u200D' || c == '\u2060' || c == '\uFEFF';
  }

  /** A size in bytes in binary units with one decimal beyond bytes: {@code 512 B}, {@code 1.5 MiB}; a dash when negative (unknown). */
  public static String bytes(long bytes) {
    if (bytes < 0) {
      return "—";
    }
    if (bytes < 1024) {
      return bytes + " B";
    }
    double value = bytes;
    int unit = 0;
    while (value >= 1024 && unit < BYTE_UNITS.length - 1) {
      value /= 1024;
      unit++;
    }
    return String.format(Locale.ROOT, "%.1f %s", value, BYTE_UNITS[unit]);
  }
}
