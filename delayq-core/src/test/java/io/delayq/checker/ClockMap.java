package io.delayq.checker;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalLong;

/**
 * Bounds on the Redis clock (epoch ms, as the scripts read {@code TIME}) at a local instant ({@link
 * System#nanoTime}), learnt from calls that report the Redis time at which they ran: a call that
 * started at local {@code s}, ended at {@code e} and ran at Redis ms {@code r} says that the offset
 * {@code redis - local} is at least {@code r - e} and at most {@code r + 1 - s}. Only observations
 * within {@link #WINDOW_NANOS} of the instant asked about are used, so a slow drift between the
 * wall clock and the monotonic clock does not accumulate; the caller adds its own slack on top.
 *
 * <p>The Redis nodes of these tests all run on this machine and read the same wall clock, so one
 * map serves every partition. Where the observations contradict each other (a clock step), the
 * map gives no bound, and the checks that need it are skipped there rather than guessing.
 */
final class ClockMap {
  static final long WINDOW_NANOS = 2_000_000_000L;

  private record Obs(long start, long end, long redisMs) {
    long mid() {
      return start + (end - start) / 2;
    }
  }

  private final List<Obs> obs = new ArrayList<>();
  private boolean sorted = true;
  private long[] mids = new long[0];

  void observe(long startNanos, long endNanos, long redisMs) {
    if (endNanos < startNanos) {
      return;
    }
    obs.add(new Obs(startNanos, endNanos, redisMs));
    sorted = false;
  }

  int size() {
    return obs.size();
  }

  private void sort() {
    if (!sorted) {
      obs.sort(Comparator.comparingLong(Obs::mid));
      mids = obs.stream().mapToLong(Obs::mid).toArray();
      sorted = true;
    }
  }

  /** [low, high] bounds of the offset (Redis ms minus local ms, as doubles) near {@code at}; null when unknown. */
  private double[] offset(long at) {
    sort();
    int from = lowerBound(at - WINDOW_NANOS);
    double low = Double.NEGATIVE_INFINITY;
    double high = Double.POSITIVE_INFINITY;
    for (int i = from; i < obs.size() && mids[i] <= at + WINDOW_NANOS; i++) {
      Obs o = obs.get(i);
      low = Math.max(low, o.redisMs() - o.end() / 1e6);
      high = Math.min(high, o.redisMs() + 1 - o.start() / 1e6);
    }
    if (low == Double.NEGATIVE_INFINITY || high < low - 1.0) {
      return null;
    }
    return new double[] {low, high};
  }

  private int lowerBound(long value) {
    int lo = 0;
    int hi = mids.length;
    while (lo < hi) {
      int m = (lo + hi) >>> 1;
      if (mids[m] < value) {
        lo = m + 1;
      } else {
        hi = m;
      }
    }
    return lo;
  }

  /** A Redis ms the clock had certainly reached at local {@code at}, less {@code slackMs}. */
  OptionalLong redisAtLeast(long at, long slackMs) {
    double[] off = offset(at);
    if (off == null) {
      return OptionalLong.empty();
    }
    return OptionalLong.of((long) Math.floor(at / 1e6 + off[0]) - slackMs);
  }

  /** A Redis ms the clock had certainly not passed at local {@code at}, plus {@code slackMs}. */
  OptionalLong redisAtMost(long at, long slackMs) {
    double[] off = offset(at);
    if (off == null || off[1] == Double.POSITIVE_INFINITY) {
      return OptionalLong.empty();
    }
    return OptionalLong.of((long) Math.ceil(at / 1e6 + off[1]) + slackMs);
  }
}
