package io.delayq;

/**
 * Redis could not be reached, or did not answer in time. Producers see it at once rather than
 * blocking; workers log it, back off and carry on when Redis returns.
 *
 * @since 0.1.0
 */
public final class RedisUnavailableException extends DelayqException {
  private static final long serialVersionUID = 1L;

  public RedisUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
