package io.delayq.internal;

import io.delayq.JobQueue;

/** A test seam for the history: flushes a client's counts now, without waiting for its interval. Not for production use. */
public final class Histories {
  private Histories() {}

  /**
   * Adds the counts the client of {@code queue} gathered so far to Redis.
   *
   * @return whether every write succeeded (the counts of those that failed are kept for the next flush)
   */
  public static boolean flush(JobQueue queue) {
    return ((QueueHandle) queue).client().history().flush();
  }
}
