package io.delayq;

/**
 * Whether an occurrence of a recurring schedule runs while the one before it is still at work.
 *
 * @since 0.4.0
 */
public enum Overlap {
  /** Every occurrence runs at its time, whatever the one before is doing (the default). */
  ALLOW,
  /**
   * An occurrence whose predecessor is still held by a worker, or waiting for a retry after a
   * failure, is skipped (counted as such); the schedule goes on with the next one.
   */
  SKIP
}
