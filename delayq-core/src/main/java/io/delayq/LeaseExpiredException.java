package io.delayq;

/**
 * An ack, nack, lease extension or release came from a delivery that no longer holds the job: its
 * lease ran out (the job is or will be delivered again), the job was handed back, or it was
 * already settled. The caller should drop the job; it must not assume its work was recorded.
 *
 * @since 0.1.0
 */
public final class LeaseExpiredException extends JobException {
  private static final long serialVersionUID = 2L;

  private final long token;

  public LeaseExpiredException(String queue, String jobId, long token) {
    super(
        queue,
        jobId,
        "the delivery with token "
            + token
            + " no longer holds the job: its lease ended, it was handed back, or it was already"
            + " settled. Drop it; if the lease ended the job will be delivered again. Use a longer"
            + " lease or extend it from long handlers.");
    this.token = token;
  }

  /** The fencing token of the refused delivery. */
  public long token() {
    return token;
  }
}
