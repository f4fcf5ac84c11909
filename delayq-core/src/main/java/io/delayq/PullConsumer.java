package io.delayq;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The worker's side of a queue for a caller that runs its own loop (or serves workers in other
 * processes): claim due jobs, then settle each delivery with its {@linkplain LeasedJob#token()
 * fencing token}. {@link JobQueue#startWorkers} does all of this for a handler. Obtained from
 * {@link JobQueue#pull()}; thread-safe.
 *
 * <p>Claims, acks, nacks, extensions and releases go over the client's worker connection, never
 * behind producers' pipelined schedule batches.
 *
 * @since 0.2.0
 */
public interface PullConsumer {
  /**
   * Claims up to {@code max} (1 to 1000) due jobs, each leased for {@code lease}. Returns what it
   * leased, possibly nothing; a partition that fails or times out does not cost the jobs leased
   * from the others, and jobs leased by a call that gave up waiting are handed back at once.
   *
   * @throws RedisUnavailableException when no partition could be claimed from
   */
  List<LeasedJob> claim(int max, Duration lease);

  /**
   * Like {@link #claim(int, Duration)}, but when nothing is due waits up to {@code wait} (at most
   * 5 minutes) for a job to become due, woken within milliseconds by the same messages as
   * workers, then returns what it could claim, possibly nothing. For pull loops and long polls.
   * An interrupted wait returns what it has with the thread's interrupt status set.
   */
  List<LeasedJob> claim(int max, Duration lease, Duration wait);

  /**
   * The delivery is done: the job is removed, and its id is remembered for the idempotency window.
   *
   * @throws LeaseExpiredException when this delivery no longer holds the job
   */
  void ack(String id, long token);

  /** As {@link #ack(String, long)} for a job this consumer claimed. */
  default void ack(LeasedJob job) {
    ack(job.id(), job.token());
  }

  /**
   * This delivery failed. The job runs again after {@code retryIn} (or the default backoff when
   * {@code null}), or goes dead when it has no attempts left.
   *
   * @return {@link JobState#SCHEDULED} or {@link JobState#DEAD}
   * @throws LeaseExpiredException when this delivery no longer holds the job
   */
  JobState nack(String id, long token, Duration retryIn, String error);

  /** As {@link #nack(String, long, Duration, String)} for a job this consumer claimed. */
  default JobState nack(LeasedJob job, Duration retryIn, String error) {
    return nack(job.id(), job.token(), retryIn, error);
  }

  /**
   * Keeps a claimed job for {@code lease} more, from now.
   *
   * @return the new end of the lease
   * @throws LeaseExpiredException when this delivery no longer holds the job
   */
  Instant extendLease(String id, long token, Duration lease);

  /**
   * Hands a claimed job back, due at once, without counting the attempt: for a holder that will
   * not run it (it is shutting down, or could not pass the job on). The next delivery gets a new
   * token, so this one's calls are refused afterwards.
   *
   * @return false when this delivery no longer held the job (its lease ended, or it was settled)
   */
  boolean release(String id, long token);

  /** As {@link #release(String, long)} for a job this consumer claimed. */
  default boolean release(LeasedJob job) {
    return release(job.id(), job.token());
  }
}
