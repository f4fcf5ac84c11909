package io.delayq;

/**
 * Redis answered a delayq command with an error that is neither a delayq refusal nor a connection
 * problem: out of memory, a key of the wrong type under delayq's prefix, a denied command. The
 * message says which and what to do.
 *
 * @since 0.2.0
 */
public final class RedisCommandException extends DelayqException {
  private static final long serialVersionUID = 1L;

  public RedisCommandException(String message, Throwable cause) {
    super(message, cause);
  }
}
