package io.delayq;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * One named queue: schedule jobs, look them up, cancel or move them, run workers on them, or claim
 * them by hand. Obtained from {@link Delayq#queue(String)}; thread-safe.
 *
 * <p>Every operation on one job is a single atomic Lua script on the job's partition. Times are
 * the Redis server's: a job is never handed out before its due time by that clock.
 *
 * @since 0.1.0
 */
public interface JobQueue {
  String name();

  /** How many partitions the queue's jobs are spread over. */
  int partitions();

  /** Schedules one job. */
  ScheduledJob schedule(JobRequest request);

  /**
   * Schedules many jobs in pipelined round trips. Every request is checked before any is sent, so a
   * bad one fails the call with nothing written; the answers are in the order of the requests.
   */
  List<ScheduledJob> scheduleAll(List<JobRequest> requests);

  /**
   * Removes a scheduled job.
   *
   * @return whether it was removed; {@code false} when no scheduled job has that id
   * @throws JobActiveException when a worker holds it now
   */
  boolean cancel(String id);

  /**
   * Moves a scheduled job to a new time, keeping its payload and attempts.
   *
   * @throws JobNotFoundException when no scheduled job has that id
   * @throws JobActiveException when a worker holds it now
   */
  ScheduledJob reschedule(String id, Duration delay);

  /** As {@link #reschedule(String, Duration)}, to an instant; one in the past means due now. */
  ScheduledJob reschedule(String id, Instant runAt);

  /** The job with this id, in whatever state, or empty when the queue does not know it. */
  Optional<JobInfo> get(String id);

  /** Counts summed over the partitions. */
  QueueStats stats();

  /** Stops all workers of this queue, everywhere, from claiming; scheduling goes on. */
  void pause();

  /** Lets workers claim again, waking them at once. */
  void resume();

  /** The most recently dead jobs, newest first, at most {@code limit} (1 to 1000). */
  List<JobInfo> deadJobs(int limit);

  /**
   * Gives a dead job a fresh set of attempts, due now.
   *
   * @return whether a dead job with that id was found
   */
  boolean requeueDead(String id);

  /** Deletes a dead job for good; returns whether one was found. */
  boolean deleteDead(String id);

  /**
   * Claims up to {@code max} due jobs for the caller's own loop. Each must be {@linkplain
   * #ack(LeasedJob) acked} or {@linkplain #nack nacked} before its lease ends.
   */
  List<LeasedJob> claim(int max, Duration lease);

  /**
   * Hands a claimed job back, due at once, without counting the attempt: for a caller that claimed
   * it but cannot run it (it is shutting down, or could not pass the job on). Returns false when
   * that attempt's lease is gone already.
   */
  boolean release(String id, int attempt);

  /**
   * Like {@link #claim(int, Duration)}, but when nothing is due waits up to {@code wait} for a job
   * to become due (woken by the same messages as workers, so within milliseconds), then returns
   * what it could claim, possibly nothing. For pull loops and HTTP long polls.
   */
  List<LeasedJob> claim(int max, Duration lease, Duration wait);

  /**
   * The defaults stored with the queue for callers that leave them out (the HTTP API's schedule
   * and claim): max attempts, and lease. Unset ones are the library defaults.
   */
  QueueDefaults defaults();

  /** Stores the queue's defaults; see {@link #defaults()}. */
  QueueDefaults setDefaults(QueueDefaults defaults);

  /**
   * The job is done: it is removed.
   *
   * @throws LeaseExpiredException when this attempt no longer holds the job
   */
  void ack(LeasedJob job);

  /** As {@link #ack(LeasedJob)}, by id and the attempt number it was claimed with. */
  void ack(String id, int attempt);

  /**
   * This attempt failed. The job runs again after {@code retryIn} (or the default backoff when
   * {@code null}), or goes dead when it has no attempts left.
   *
   * @return {@link JobState#SCHEDULED} or {@link JobState#DEAD}
   * @throws LeaseExpiredException when this attempt no longer holds the job
   */
  JobState nack(String id, int attempt, Duration retryIn, String error);

  /**
   * Keeps a claimed job for {@code lease} more, from now.
   *
   * @return the new end of the lease
   * @throws LeaseExpiredException when this attempt no longer holds the job
   */
  Instant extendLease(String id, int attempt, Duration lease);

  /** Starts workers that run {@code handler} for every due job of this queue. */
  Workers startWorkers(JobHandler handler, WorkerOptions options);
}
