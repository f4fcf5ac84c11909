package io.delayq;

/**
 * What scheduling does when a job with the same id is already known to the queue.
 *
 * @since 0.1.0
 */
public enum DuplicatePolicy {
  /**
   * The new payload and due time replace the old ones, and the attempts start again. A job a
   * worker holds right now cannot be replaced ({@link JobActiveException}).
   */
  REPLACE,
  /** The first job stays as it is; the new request is ignored. */
  KEEP
}
