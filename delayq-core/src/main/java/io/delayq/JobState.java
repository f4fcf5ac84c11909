package io.delayq;

/**
 * Where a job is in its life: waiting for its time, held by a worker, or given up on.
 *
 * @since 0.1.0
 */
public enum JobState {
  SCHEDULED,
  ACTIVE,
  DEAD
}
