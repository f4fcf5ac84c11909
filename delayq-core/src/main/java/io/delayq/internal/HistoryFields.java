package io.delayq.internal;

import io.delayq.HistoryBucket;
import io.delayq.Lateness;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/**
 * The arithmetic and the field names of the history buckets (see {@code lua/history-add.lua}):
 * which minute and hour an instant falls in, how long each kind of bucket is kept, and the short
 * fields a bucket hash holds: {@code s} scheduled, {@code d} delivered, {@code a} acked, {@code r}
 * retried, {@code x} dead, {@code l0}..{@code l17} the lateness bucket counts.
 */
final class HistoryFields {
  static final Duration MINUTE = Duration.ofMinutes(1);
  static final Duration HOUR = Duration.ofHours(1);
  /** Most minutes a read asks for: the minute buckets are kept a day. */
  static final int MAX_MINUTES = 1440;
  static final int MAX_HOURS = 168;
  /** A day and ten minutes: the oldest minute a full read asks for is still there. */
  static final long MINUTE_TTL_MILLIS = Duration.ofHours(24).plusMinutes(10).toMillis();
  /** Seven days and an hour. */
  static final long HOUR_TTL_MILLIS = Duration.ofDays(7).plusHours(1).toMillis();

  static final String SCHEDULED = "s";
  static final String DELIVERED = "d";
  static final String ACKED = "a";
  static final String RETRIED = "r";
  static final String DEAD = "x";
  static final int LATENESS_BUCKETS = Lateness.BUCKET_BOUNDS.size() + 1;
  private static final String[] LATENESS = new String[LATENESS_BUCKETS];

  static {
    for (int i = 0; i < LATENESS_BUCKETS; i++) {
      LATENESS[i] = "l" + i;
    }
  }

  private HistoryFields() {}

  static String lateness(int bucket) {
    return LATENESS[bucket];
  }

  static long epochMinute(long epochMillis) {
    return Math.floorDiv(epochMillis, MINUTE.toMillis());
  }

  static long epochHour(long epochMillis) {
    return Math.floorDiv(epochMillis, HOUR.toMillis());
  }

  static long hourOfMinute(long epochMinute) {
    return Math.floorDiv(epochMinute, 60);
  }

  /** The first of {@code count} buckets ending with the one holding {@code nowMillis}, for a read. */
  static long firstOf(long current, int count) {
    return current - count + 1;
  }

  static void checkMinutes(int minutes) {
    if (minutes < 1 || minutes > MAX_MINUTES) {
      throw new IllegalArgumentException(
          "minutes must be between 1 and " + MAX_MINUTES + " (minute buckets are kept 24 hours); got " + minutes);
    }
  }

  static void checkHours(int hours) {
    if (hours < 1 || hours > MAX_HOURS) {
      throw new IllegalArgumentException(
          "hours must be between 1 and " + MAX_HOURS + " (hour buckets are kept 7 days); got " + hours);
    }
  }

  /**
   * A bucket from its hash as read (empty when it does not exist). Fields another program wrote that
   * are not numbers count as zero: a history is for looking at, and must not fail a page.
   */
  static HistoryBucket decode(Instant start, Duration width, Map<byte[], byte[]> raw) {
    long s = 0, d = 0, a = 0, r = 0, x = 0;
    long[] late = new long[LATENESS_BUCKETS];
    if (raw != null) {
      for (Map.Entry<byte[], byte[]> e : raw.entrySet()) {
        String field = new String(e.getKey(), StandardCharsets.UTF_8);
        long value = number(e.getValue());
        switch (field) {
          case SCHEDULED -> s = value;
          case DELIVERED -> d = value;
          case ACKED -> a = value;
          case RETRIED -> r = value;
          case DEAD -> x = value;
          default -> {
            if (field.startsWith("l")) {
              try {
                int bucket = Integer.parseInt(field.substring(1));
                if (bucket >= 0 && bucket < LATENESS_BUCKETS) {
                  late[bucket] = value;
                }
              } catch (NumberFormatException ignored) {
                // another program's field
              }
            }
          }
        }
      }
    }
    return new HistoryBucket(start, width, s, d, a, r, x, Lateness.of(late));
  }

  private static long number(byte[] value) {
    try {
      return Math.max(0, Long.parseLong(new String(value, StandardCharsets.US_ASCII)));
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
