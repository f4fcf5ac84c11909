package io.delayq;

/**
 * Root of every exception delayq throws. Messages say what was wrong, with the value received, and
 * what to do about it.
 *
 * @since 0.1.0
 */
public abstract class DelayqException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  protected DelayqException(String message) {
    super(message);
  }

  protected DelayqException(String message, Throwable cause) {
    super(message, cause);
  }
}
