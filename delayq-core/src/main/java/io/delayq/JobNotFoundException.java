package io.delayq;

/**
 * No job with that id is in the state the operation needs (for example, no scheduled job to
 * reschedule: it may have run already, been cancelled, or never existed).
 *
 * @since 0.1.0
 */
public final class JobNotFoundException extends JobException {
  private static final long serialVersionUID = 1L;

  public JobNotFoundException(String queue, String jobId, String message) {
    super(queue, jobId, message);
  }
}
