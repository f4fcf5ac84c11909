package io.delayq.spring;

import io.delayq.DelayqException;

/**
 * A value that could not be written as a payload, or a payload that is not what the listener
 * declared. A listener whose payload cannot be read fails the delivery without retrying it: the
 * same bytes would fail the same way every time, so the job goes to the dead-letter set, where it
 * can be looked at and requeued once the listener is fixed.
 *
 * @since 0.3.0
 */
public class PayloadConversionException extends DelayqException {
  public PayloadConversionException(String message, Throwable cause) {
    super(message, cause);
  }
}
