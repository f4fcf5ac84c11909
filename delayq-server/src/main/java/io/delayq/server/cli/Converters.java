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

/** How {@code --delay} and {@code --at} values are read. */
final class Converters {
  private Converters() {}

  /**
   * A delay: {@code 500ms}, {@code 30s}, {@code 5m}, {@code 1h}, {@code 2d}, combinations such as
   * {@code 1h30m}, or ISO-8601 such as {@code PT30S}. Never negative.
   */
  static final class DelayConverter implements ITypeConverter<Duration> {
    private static final Pattern WHOLE = Pattern.compile("(?:\\d+(?:ms|s|m|h|d))+");
    private static final Pattern PART = Pattern.compile("(\\d+)(ms|s|m|h|d)");

    @Override
    public Duration convert(String value) {
      String text = value.strip().toLowerCase(Locale.ROOT);
      Duration parsed = null;
      try {
        if (text.startsWith("p") || text.startsWith("-p")) {
          parsed = Duration.parse(text.toUpperCase(Locale.ROOT));
        } else if (WHOLE.matcher(text).matches()) {
          parsed = Duration.ZERO;
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
        }
      } catch (DateTimeParseException | ArithmeticException e) {
        parsed = null;
      }
      if (parsed == null) {
        throw new TypeConversionException("'" + value + "' is not a delay; write 500ms, 30s, 5m, 1h, 2d, 1h30m"
            + " or ISO-8601 such as PT30S");
      }
      if (parsed.isNegative()) {
        throw new TypeConversionException("'" + value + "' is negative; a delay counts forward from now"
            + " (use --at for a moment in the past, which means due now)");
      }
      return parsed;
    }
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
