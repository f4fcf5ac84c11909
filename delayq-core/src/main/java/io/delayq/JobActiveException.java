package io.delayq;

/**
 * A worker holds the job right now, so it can no longer be cancelled, rescheduled or replaced. The
 * attempt will end with an ack, a retry, or a lease expiry; act on the job after that, or schedule
 * a new one under another id.
 *
 * @since 0.1.0
 */
public final class JobActiveException extends JobException {
  private static final long serialVersionUID = 1L;

  public JobActiveException(String queue, String jobId, String message) {
    super(queue, jobId, message);
  }
}
