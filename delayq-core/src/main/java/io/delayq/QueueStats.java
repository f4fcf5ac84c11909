package io.delayq;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * Counts of one queue, summed over its partitions.
 *
 * @param queue the queue's name
 * @param partitions how many partitions the queue has
 * @param scheduled jobs waiting, due or not
 * @param due jobs whose time has come but that no worker has claimed yet
 * @param active jobs held by a worker under a lease that is still running
 * @param expired jobs whose lease ended without an ack, not yet recovered by a claim
 * @param dead jobs that used all their attempts
 * @param paused whether claiming is paused
 * @param oldestDueAt when the longest-waiting unclaimed due job became due; null when no job is due
 * @param oldestDueAge how long that job has been due, by the Redis clock (so a skewed clock on this
 *     machine does not change it); {@link Duration#ZERO} when no job is due. Workers claim a due job
 *     within their sweep interval, so an age well past it means no worker is claiming (none running,
 *     the queue paused, or workers that cannot keep up)
 * @since 0.1.0
 */
public record QueueStats(
    String queue,
    int partitions,
    long scheduled,
    long due,
    long active,
    long expired,
    long dead,
    boolean paused,
    Instant oldestDueAt,
    Duration oldestDueAge) {

  /** Checks that an age comes with a due time and is never negative. */
  public QueueStats {
    Objects.requireNonNull(oldestDueAge, "oldestDueAge");
    if (oldestDueAge.isNegative()) {
      throw new IllegalArgumentException("oldestDueAge must not be negative; got " + oldestDueAge);
    }
    if (oldestDueAt == null && !oldestDueAge.isZero()) {
      throw new IllegalArgumentException("oldestDueAge is " + oldestDueAge + " but oldestDueAt is null");
    }
  }

  /** Counts without the oldest due job (for counts read from elsewhere, e.g. the HTTP API). */
  public QueueStats(
      String queue, int partitions, long scheduled, long due, long active, long expired, long dead, boolean paused) {
    this(queue, partitions, scheduled, due, active, expired, dead, paused, null, Duration.ZERO);
  }
}
