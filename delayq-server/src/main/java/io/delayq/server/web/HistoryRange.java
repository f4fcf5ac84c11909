package io.delayq.server.web;

import io.delayq.InvalidRequestException;
import java.time.Duration;

/** The time ranges of the History page: {@code ?range=1h|24h|7d}; the last hour by default. */
public enum HistoryRange {
  /** The last 60 minutes, by minute. */
  HOUR("1h", "last hour", Duration.ofMinutes(1), 60),
  /** The last 24 hours, by minute. */
  DAY("24h", "last 24 hours", Duration.ofMinutes(1), 24 * 60),
  /** The last 7 days, by hour. */
  WEEK("7d", "last 7 days", Duration.ofHours(1), 7 * 24);

  private final String param;
  private final String label;
  private final Duration width;
  private final int buckets;

  HistoryRange(String param, String label, Duration width, int buckets) {
    this.param = param;
    this.label = label;
    this.width = width;
    this.buckets = buckets;
  }

  /**
   * The range a {@code range} parameter names; {@link #HOUR} when it is absent or empty.
   *
   * @throws InvalidRequestException (field {@code range}) for any other value
   */
  public static HistoryRange parse(String text) {
    if (text == null || text.isEmpty()) {
      return HOUR;
    }
    for (HistoryRange range : values()) {
      if (range.param.equals(text)) {
        return range;
      }
    }
    String shown = text.length() <= 32 ? text : text.substring(0, 29) + "...";
    throw new InvalidRequestException("range", "must be 1h, 24h or 7d; got '" + shown + "'. Leave it out for the last hour");
  }

  /** The value of the {@code range} parameter: {@code 1h}, {@code 24h} or {@code 7d}. */
  public String param() {
    return param;
  }

  /** How the page names it: {@code last hour}, {@code last 24 hours}, {@code last 7 days}. */
  public String label() {
    return label;
  }

  /** The width of one bucket: a minute or an hour. */
  public Duration width() {
    return width;
  }

  /** How many buckets the range spans. */
  public int buckets() {
    return buckets;
  }

  /** Whether its buckets are hours (else minutes). */
  public boolean hourly() {
    return width.equals(Duration.ofHours(1));
  }
}
