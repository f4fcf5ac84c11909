package io.delayq;

import java.time.Duration;
import java.util.Objects;

/**
 * What a recurring schedule does with occurrences that could not run on time: while no worker of
 * the queue was alive, while the queue was paused, or while workers were too busy to claim them.
 *
 * <p>An occurrence is <em>missed</em> when it is claimed later than {@link #grace()} after its due
 * time, or when the occurrence after it is already due (so a schedule every second that was down
 * for ten seconds never counts ten runs as "on time"). Lateness is measured by the Redis clock.
 *
 * <ul>
 *   <li>{@link #skip()} (the default): missed occurrences do not run; the schedule resumes at its
 *       next occurrence that is not yet missed.
 *   <li>{@link #runOnce()}: the first missed occurrence of a run of misses runs (once, to catch
 *       up), the rest are skipped.
 *   <li>{@link #runUpTo(int)}: up to {@code n} missed occurrences of a run of misses run, one after
 *       the other, oldest first; the rest are skipped.
 * </ul>
 *
 * @param policy which of the three
 * @param maxRuns how many missed occurrences of one run of misses still run: 0, 1, or n
 * @param grace how late an occurrence may start and still count as on time
 * @since 0.4.0
 */
public record Misfire(Policy policy, int maxRuns, Duration grace) {
  /** The grace unless one is given: long enough for a busy queue, short enough to notice downtime. */
  public static final Duration DEFAULT_GRACE = Duration.ofMinutes(1);
  /** The least grace: above the few milliseconds by which workers start jobs after their due time. */
  public static final Duration MIN_GRACE = Duration.ofSeconds(1);
  /** The most missed occurrences {@link #runUpTo} runs after one downtime. */
  public static final int MAX_RUNS_LIMIT = 1000;

  /** The three policies; see {@link Misfire}. */
  public enum Policy {
    SKIP,
    RUN_ONCE,
    RUN_UP_TO
  }

  public Misfire {
    Objects.requireNonNull(policy, "policy");
    Objects.requireNonNull(grace, "grace");
    if (grace.compareTo(MIN_GRACE) < 0 || grace.compareTo(Duration.ofDays(365)) > 0) {
      throw new InvalidRequestException(
          "misfire.grace",
          "must be at least 1 second and at most 365 days; got " + grace + ". Workers start a job some"
              + " milliseconds after it is due, so a smaller grace would count on-time runs as missed");
    }
    int expected = policy == Policy.SKIP ? 0 : policy == Policy.RUN_ONCE ? 1 : -1;
    if (expected >= 0 && maxRuns != expected) {
      throw new InvalidRequestException(
          "misfire.maxRuns", "must be " + expected + " for " + policy + "; got " + maxRuns);
    }
    if (policy == Policy.RUN_UP_TO && (maxRuns < 1 || maxRuns > MAX_RUNS_LIMIT)) {
      throw new InvalidRequestException(
          "misfire.maxRuns",
          "must be between 1 and " + MAX_RUNS_LIMIT + " for RUN_UP_TO; got " + maxRuns
              + " (use SKIP for none)");
    }
  }

  public static Misfire skip() {
    return new Misfire(Policy.SKIP, 0, DEFAULT_GRACE);
  }

  public static Misfire runOnce() {
    return new Misfire(Policy.RUN_ONCE, 1, DEFAULT_GRACE);
  }

  public static Misfire runUpTo(int maxRuns) {
    return new Misfire(Policy.RUN_UP_TO, maxRuns, DEFAULT_GRACE);
  }

  public Misfire withGrace(Duration grace) {
    return new Misfire(policy, maxRuns, grace);
  }
}
