package io.delayq.bench;

import java.util.Locale;

/** Number formats shared by the progress log and the report; NaN prints as an em dash. */
final class Fmt {
  static final String NONE = "—";

  private Fmt() {}

  /** Jobs or commands per second, whole numbers with thousands separators. */
  static String rate(double perSecond) {
    return Double.isFinite(perSecond) ? String.format(Locale.ROOT, "%,.0f", perSecond) : NONE;
  }

  static String count(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }

  /** Microseconds as milliseconds with two decimals. */
  static String ms(double micros) {
    return Double.isFinite(micros) ? String.format(Locale.ROOT, "%.2f", micros / 1000) : NONE;
  }

  static String decimal(double value, int places) {
    return Double.isFinite(value) ? String.format(Locale.ROOT, "%,." + places + "f", value) : NONE;
  }

  /** A ratio as {@code 3.4×}. */
  static String ratio(double value) {
    if (!Double.isFinite(value)) {
      return NONE;
    }
    return String.format(Locale.ROOT, value >= 10 ? "%.0f×" : value >= 0.1 ? "%.2f×" : "%.3f×", value);
  }

  static String percent(double fraction) {
    return Double.isFinite(fraction) ? String.format(Locale.ROOT, "%.0f%%", fraction * 100) : NONE;
  }

  /** A size such as {@code 10 k}, {@code 1 M}, {@code 10 M}. */
  static String size(long n) {
    if (n >= 1_000_000 && n % 1_000_000 == 0) {
      return n / 1_000_000 + " M";
    }
    if (n >= 1_000 && n % 1_000 == 0) {
      return n / 1_000 + " k";
    }
    return count(n);
  }
}
