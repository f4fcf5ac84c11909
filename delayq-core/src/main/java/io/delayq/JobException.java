package io.delayq;

/**
 * An operation on one job that could not be carried out in the job's present state. Carries the
 * queue and the id, and names both in the message in one fixed form.
 *
 * @since 0.1.0
 */
public abstract class JobException extends DelayqException {
  private static final long serialVersionUID = 1L;
  private final String queue;
  private final String jobId;

  protected JobException(String queue, String jobId, String message) {
    super("job '" + jobId + "' in queue '" + queue + "': " + message);
    this.queue = queue;
    this.jobId = jobId;
  }

  public String queue() {
    return queue;
  }

  public String jobId() {
    return jobId;
  }
}
