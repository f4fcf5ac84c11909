package io.delayq.server.cli;

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** How {@code --delay}, {@code --every}, {@code --grace}, {@code --at} and the like are read. */
final class Converters {
  private Converters() {}

  /**
   * A delay: {@code 500ms}, {@code 30s}, {@code 5m}, {@code 1h}, {@code 2d}, combinations such as
   * {@code 1h30m}, or ISO-8601 such as {@code PT30S}. Never negative.
   */
  static final class DelayConverter implements ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      Duration parsed = parse(value, "a delay");
      if (parsed.isNegative()) {
        throw new TypeConversionException("'" + value + "' is negative; a delay counts forward from now"
            + " (use --at for a moment in the past, which means due now)");
      }
      return parsed;
    }
  }

  /**
   * A length of time, such as a schedule's interval or grace: written as a delay is, never
   * negative; the command checks its range.
   */
  static final class IntervalConverter implements ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      String text = value.strip();
      Duration parsed = parse(text.startsWith("-") ? text.substring(1) : text, "a length of time");
      if (text.startsWith("-") || parsed.isNegative()) {
        throw new TypeConversionException("'" + value + "' is negative; give a length of time such as 30s, 5m, 1h"
            + " or 1d, without a sign");
      }
      return parsed;
    }
  }

  private static final Pattern WHOLE = Pattern.compile("(?:\\d+(?:ms|s|m|h|d))+");
  private static final Pattern PART = Pattern.compile("(\\d+)(ms|s|m|h|d)");
  private static final String FORMS = "write 500ms, 30s, 5m, 1h, 2d, 1h30m or ISO-8601 such as PT30S";

  /** {@code 1h30m} or ISO-8601; a sign only in ISO-8601 ({@code -PT5M}). */
  private static Duration parse(String value, String what) {
    String text = value.strip().toLowerCase(Locale.ROOT);
    try {
      if (text.startsWith("p") || text.startsWith("-p")) {
        return Duration.parse(text.toUpperCase(Locale.ROOT));
      }
      if (WHOLE.matcher(text).matches()) {
        Duration parsed = Duration.ZERO;
        Matcher part = PART.matcher(text);
        while (part.find()) {
          long n = Long.parseLong(part.group(1));
          parsed = parsed.plus(switch (part.group(2)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> Duration.ofDays(n);
          });
        }
        return parsed;
      }
    } catch (NumberFormatException | ArithmeticException tooLarge) {
      // why: Long.parseLong and Duration.parse overflow on a number of 20 digits; say so rather than
      // show the exception
      throw new TypeConversionException("'" + value + "' is too large a number to be " + what + "; " + FORMS);
    } catch (DateTimeParseException e) {
      if (e.getCause() instanceof ArithmeticException || e.getCause() instanceof NumberFormatException) {
        throw new TypeConversionException("'" + value + "' is too large a number to be " + what + "; " + FORMS);
      }
      // not ISO-8601 after all: refused below
    }
    throw new TypeConversionException("'" + value + "' is not " + what + "; " + FORMS);
  }

  /** An instant: ISO-8601 in UTC ({@code 2026-12-01T09:00:00Z}) or with an offset ({@code …+01:00}). */
  static final class InstantConverter implements ITypeConverter<Instant> {
    @Override
    public Instant convert(String value) {
      String text = value.strip();
      try {
        return Instant.parse(text);
      } catch (DateTimeParseException notUtc) {
        try {
          return OffsetDateTime.parse(text).toInstant();
        } catch (DateTimeParseException e) {
          throw new TypeConversionException("'" + value + "' is not an ISO-8601 instant; write it like"
              + " 2026-12-01T09:00:00Z or 2026-12-01T10:00:00+01:00");
        }
      }
    }
  }
}
