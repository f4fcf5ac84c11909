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
  /**
   * The first job stays as it is; the new request is ignored. A job scheduled with {@code KEEP}
   * (or asked for with {@code KEEP} while it existed) still counts as existing for the client's
   * idempotency window once it is acked or cancelled, so repeating a {@code KEEP} request never
   * runs a job twice. Use it where a retried schedule must be safe.
   */
  KEEP
}
