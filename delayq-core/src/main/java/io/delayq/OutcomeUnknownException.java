package io.delayq;

/**
 * Redis did not answer in time, or the connection dropped while the call was in flight: the call
 * may or may not have taken effect. This differs from {@link RedisUnavailableException}, which
 * means the call was refused before it reached Redis and did nothing.
 *
 * <p>What to do depends on the call: a schedule may be retried as it was, which is safe for one
 * made with {@link DuplicatePolicy#KEEP} (a job that already ran or was cancelled within the
 * client's idempotency window is not scheduled again) and, for one made with {@link
 * DuplicatePolicy#REPLACE}, as long as the job has not run yet: only {@code KEEP} jobs are
 * remembered once finished. A claim that timed out hands back whatever it leased once the reply comes.
 * An ack or nack that timed out may be retried with the same token; if it is refused, the first one
 * took effect or the lease ended.
 *
 * @since 0.2.0
 */
public final class OutcomeUnknownException extends DelayqException {
  private static final long serialVersionUID = 1L;

  public OutcomeUnknownException(String message, Throwable cause) {
    super(message, cause);
  }
}
