package io.delayq;

import java.util.List;

/**
 * The operator's side of a queue: counts, pausing, dead letters, stored defaults. Obtained from
 * {@link JobQueue#admin()}; thread-safe.
 *
 * @since 0.2.0
 */
public interface QueueAdmin {
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
   * The defaults stored with the queue for callers that leave them out (the HTTP API's schedule
   * and claim): max attempts, and lease. Unset ones are the library defaults.
   */
  QueueDefaults defaults();

  /** Stores the queue's defaults; see {@link #defaults()}. */
  QueueDefaults setDefaults(QueueDefaults defaults);
}
