package io.delayq;

/**
 * Where a job is in its life: waiting for its time, held by a worker, held under a lease that has
 * ended but not yet been recovered, or given up on.
 *
 * @since 0.1.0
 */
public enum JobState {
  SCHEDULED,
  ACTIVE,
  /**
   * Its lease ended before an ack: the holder is gone or too slow. The next claim on its partition
   * (or any by-id operation on it) counts the attempt and schedules it again, or buries it.
   *
   * @since 0.2.0
   */
  EXPIRED,
  DEAD
}
