package io.delayq;

/**
 * Thrown by a {@link JobHandler} to fail a job for good: the job goes straight to the dead-letter
 * set with this exception as its error, whatever attempts it has left. For failures that the same
 * job would meet on every try (a payload that cannot be parsed, an order that no longer exists),
 * where retrying only delays the dead letter and costs the backoff's waits. Exceptions of types
 * the workers are told about with {@link WorkerOptions.Builder#nonRetryable} are treated the same
 * way without being wrapped.
 *
 * <p>The dead job keeps its payload and can be requeued with {@link QueueAdmin#requeueDead} once
 * the cause is fixed.
 *
 * @since 0.3.0
 */
public class NonRetryableJobException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public NonRetryableJobException(String message) {
    super(message);
  }

  /** @param cause the failure the job is given up for; recorded with the job's error */
  public NonRetryableJobException(String message, Throwable cause) {
    super(message, cause);
  }
}
