package io.delayq;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * How late deliveries were, as counts in fixed buckets: immutable. The buckets' upper bounds are
 * {@link #BUCKET_BOUNDS}; a delivery {@code d} late falls in the first bucket whose bound is at
 * least {@code d}, and one later than the last bound in the overflow bucket.
 *
 * @since 0.4.0
 */
public final class Lateness {
  /**
   * The upper bounds of the buckets, inclusive: 1, 2, 5, 10, 20, 50, 100, 200, 500 ms, 1, 2, 5, 10,
   * 30 s, 1, 5, 15 min. Fixed: every client and every stored bucket uses these, so they add up.
   */
  public static final List<Duration> BUCKET_BOUNDS = List.of(
      Duration.ofMillis(1), Duration.ofMillis(2), Duration.ofMillis(5), Duration.ofMillis(10),
      Duration.ofMillis(20), Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(200),
      Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(5),
      Duration.ofSeconds(10), Duration.ofSeconds(30), Duration.ofMinutes(1), Duration.ofMinutes(5),
      Duration.ofMinutes(15));

  /** Buckets, overflow included. */
  private static final int BUCKETS = BUCKET_BOUNDS.size() + 1;
  private static final long[] BOUND_MICROS =
      BUCKET_BOUNDS.stream().mapToLong(d -> d.toNanos() / 1000).toArray();

  /** No deliveries. */
  public static final Lateness NONE = new Lateness(new long[BUCKETS]);

  private final long[] counts;
  private final long count;

  private Lateness(long[] counts) {
    this.counts = counts;
    long sum = 0;
    for (long c : counts) {
      sum += c;
    }
    this.count = sum;
  }

  /**
   * Lateness with these bucket counts.
   *
   * @param counts one count per bucket, {@code BUCKET_BOUNDS.size() + 1} of them (the last the
   *     overflow), none negative; copied
   * @throws IllegalArgumentException when the length is wrong or a count is negative
   */
  public static Lateness of(long... counts) {
    if (counts.length != BUCKETS) {
      throw new IllegalArgumentException(
          "counts must have " + BUCKETS + " entries (one per bucket bound plus overflow); got " + counts.length);
    }
    for (int i = 0; i < counts.length; i++) {
      if (counts[i] < 0) {
        throw new IllegalArgumentException("counts[" + i + "] must not be negative; got " + counts[i]);
      }
    }
    return new Lateness(counts.clone());
  }

  /**
   * The bucket a delivery this many microseconds late falls in: 0 to {@code BUCKET_BOUNDS.size()}
   * (the overflow). Early or on time (zero or negative) counts in the first bucket.
   */
  public static int bucketOf(long latenessMicros) {
    int at = Arrays.binarySearch(BOUND_MICROS, latenessMicros);
    return at >= 0 ? at : -at - 1;
  }

  /** Deliveries counted, over all buckets. */
  public long count() {
    return count;
  }

  /** The count of each bucket, a copy: {@code BUCKET_BOUNDS.size() + 1} entries, the last the overflow. */
  public long[] counts() {
    return counts.clone();
  }

  /**
   * The lateness that {@code quantile} of the deliveries were within, to bucket precision: the upper
   * bound of the bucket that holds the delivery of rank {@code ceil(quantile * count())}. The
   * overflow bucket answers the last bound (the true value is larger).
   *
   * @param quantile more than 0, at most 1 (0.99 for the 99th percentile)
   * @return empty when no delivery was counted
   * @throws IllegalArgumentException when the quantile is out of range
   */
  public Optional<Duration> percentile(double quantile) {
    if (!(quantile > 0 && quantile <= 1)) {
      throw new IllegalArgumentException("quantile must be more than 0 and at most 1; got " + quantile);
    }
    if (count == 0) {
      return Optional.empty();
    }
    long rank = Math.max(1, (long) Math.ceil(quantile * count));
    long seen = 0;
    for (int i = 0; i < counts.length; i++) {
      seen += counts[i];
      if (seen >= rank) {
        return Optional.of(BUCKET_BOUNDS.get(Math.min(i, BUCKET_BOUNDS.size() - 1)));
      }
    }
    return Optional.of(BUCKET_BOUNDS.get(BUCKET_BOUNDS.size() - 1));
  }

  /** These deliveries and {@code other}'s together. */
  public Lateness plus(Lateness other) {
    long[] sum = new long[BUCKETS];
    for (int i = 0; i < BUCKETS; i++) {
      sum[i] = counts[i] + other.counts[i];
    }
    return new Lateness(sum);
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof Lateness that && Arrays.equals(counts, that.counts);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(counts);
  }

  @Override
  public String toString() {
    return "Lateness[count=" + count + ", counts=" + Arrays.toString(counts) + "]";
  }
}
