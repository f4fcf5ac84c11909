package io.delayq.spring.internal.listener;

import io.delayq.InvalidRequestException;
import io.delayq.Misfire;
import io.delayq.Overlap;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.Locale;

/**
 * The text forms of schedule settings that the annotation and the properties share. Each parser
 * throws an {@link InvalidRequestException} naming the field, which the caller reports against
 * its attribute or property.
 */
public final class ScheduleValues {
  private ScheduleValues() {}

  /** {@code skip}, {@code run-once} or {@code run-up-to:<n>}, with its grace; a null text is skip. */
  public static Misfire misfire(String text, Duration grace) {
    String v = text == null ? "skip" : text.trim().toLowerCase(Locale.ROOT);
    Misfire misfire;
    if (v.equals("skip")) {
      misfire = Misfire.skip();
    } else if (v.equals("run-once")) {
      misfire = Misfire.runOnce();
    } else if (v.startsWith("run-up-to:")) {
      int n;
      try {
        n = Integer.parseInt(v.substring("run-up-to:".length()).trim());
      } catch (NumberFormatException e) {
        throw new InvalidRequestException("misfire", "'" + text + "' has no whole number after run-up-to:; write"
            + " e.g. run-up-to:3");
      }
      misfire = Misfire.runUpTo(n);
    } else {
      throw new InvalidRequestException("misfire", "'" + text + "' is not one of skip, run-once, run-up-to:<n>");
    }
    return grace == null ? misfire : misfire.withGrace(grace);
  }

  /** {@code allow} or {@code skip}; a null text is allow. */
  public static Overlap overlap(String text) {
    String v = text == null ? "allow" : text.trim();
    for (Overlap overlap : Overlap.values()) {
      if (overlap.name().equalsIgnoreCase(v)) {
        return overlap;
      }
    }
    throw new InvalidRequestException("overlap", "'" + text + "' is not one of allow, skip");
  }

  public static ZoneId zone(String text) {
    try {
      return ZoneId.of(text.trim());
    } catch (DateTimeException e) {
      throw new InvalidRequestException("zone", "'" + text + "' is not a time zone; give a region such as"
          + " Europe/Amsterdam, or UTC");
    }
  }

  /** An ISO-8601 instant ({@code 2026-01-01T00:00:00Z}) or date-time with an offset. */
  public static Instant instant(String field, String text) {
    String v = text.trim();
    try {
      return Instant.parse(v);
    } catch (DateTimeParseException e) {
      try {
        return OffsetDateTime.parse(v).toInstant();
      } catch (DateTimeParseException again) {
        throw new InvalidRequestException(field, "'" + text + "' is not an ISO-8601 instant; write e.g."
            + " 2026-01-01T00:00:00Z or 2026-01-01T09:00:00+01:00");
      }
    }
  }
}
