package io.delayq;

/**
 * The client was used after {@link Delayq#close()}.
 *
 * @since 0.1.0
 */
public final class DelayqClosedException extends DelayqException {
  private static final long serialVersionUID = 1L;

  public DelayqClosedException(String what) {
    super(what + ": the delayq client is closed; create a new one with Delayq.connect(..)");
  }
}
