package io.delayq;

import java.time.Duration;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * How long a failed job waits before its next attempt: {@code initial × multiplier^(attempt-1)},
 * capped at {@code max}, then spread by ±{@code jitter} (a fraction) so that jobs that failed
 * together do not retry together.
 *
 * @param initial the wait after the first failure
 * @param max the longest wait
 * @param multiplier growth per failed attempt, at least 1
 * @param jitter fraction of random spread, from 0 (none) to 1
 * @since 0.1.0
 */
public record Backoff(Duration initial, Duration max, double multiplier, double jitter) {
  /** One second, doubling, at most ten minutes, ±20%. */
  public static final Backoff DEFAULT =
      new Backoff(Duration.ofSeconds(1), Duration.ofMinutes(10), 2.0, 0.2);

  public Backoff {
    Objects.requireNonNull(initial, "initial");
    Objects.requireNonNull(max, "max");
    if (initial.isNegative() || max.compareTo(initial) < 0) {
      throw new InvalidRequestException(
          "backoff",
          "needs 0 <= initial <= max; got initial " + initial + " and max " + max);
    }
    if (!(multiplier >= 1.0) || Double.isInfinite(multiplier)) {
      throw new InvalidRequestException(
          "backoff.multiplier", "must be a finite number >= 1; got " + multiplier);
    }
    if (!(jitter >= 0.0 && jitter <= 1.0)) {
      throw new InvalidRequestException(
          "backoff.jitter", "must be between 0 and 1; got " + jitter);
    }
  }

  /** A fixed wait with no growth and no jitter. */
  public static Backoff fixed(Duration wait) {
    return new Backoff(wait, wait, 1.0, 0.0);
  }

  /**
   * The wait after attempt {@code failedAttempt} (counting from 1) failed.
   *
   * @param random the source of jitter; tests pass a seeded one
   */
  public Duration delayAfter(int failedAttempt, RandomGenerator random) {
    double base = initial.toMillis() * Math.pow(multiplier, Math.max(0, failedAttempt - 1));
    double capped = Math.min(base, max.toMillis());
    double spread = jitter == 0 ? 1.0 : 1.0 - jitter + 2.0 * jitter * random.nextDouble();
    return Duration.ofMillis(Math.round(Math.min(capped * spread, max.toMillis())));
  }
}
