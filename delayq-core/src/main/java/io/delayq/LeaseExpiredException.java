package io.delayq;

/**
 * An ack, nack or lease extension came from an attempt that no longer holds the job: its lease ran
 * out (the job is or will be delivered again) or the job was already finished. The caller should
 * drop the job; it must not assume its work was recorded.
 *
 * @since 0.1.0
 */
public final class LeaseExpiredException extends JobException {
  private static final long serialVersionUID = 1L;
  private final int attempt;

  public LeaseExpiredException(String queue, String jobId, int attempt) {
    super(
        queue,
        jobId,
        "attempt "
            + attempt
            + " no longer holds the job: its lease expired or it was already finished. "
            + "Drop it; if the lease expired the job will be delivered again. "
            + "Use a longer lease or extend it from long handlers.");
    this.attempt = attempt;
  }

  public int attempt() {
    return attempt;
  }
}
