package io.delayq.internal;

import io.delayq.JobQueue;

/**
 * A test seam for worker heartbeats: makes a client stop writing its heartbeat without deleting it,
 * as a process that crashed would. Not for production use.
 */
public final class Heartbeats {
  private Heartbeats() {}

  /** The client that {@code queue} belongs to writes no more heartbeats; its entry expires by itself. */
  public static void stopWritingLikeACrash(JobQueue queue) {
    ((QueueHandle) queue).client().heartbeat().suspend();
  }
}
