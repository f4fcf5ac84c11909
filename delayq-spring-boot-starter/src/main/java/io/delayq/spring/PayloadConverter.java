package io.delayq.spring;

import java.lang.reflect.Type;

/**
 * Turns the values an application schedules into job payloads, and payloads back into the values
 * a listener method asks for. The starter provides one built on the application's own JSON mapper
 * (Jackson 3's {@code JsonMapper}, or Jackson 2's {@code ObjectMapper} when that is what the
 * application has); a bean of this type replaces it.
 *
 * <p>{@code byte[]} payloads are passed through and {@link String} payloads are UTF-8 text; every
 * other value is written as JSON with no type names in it, so that consumers in any language (or
 * the HTTP API) can read it, and is read back into whatever type the consumer declares.
 *
 * @since 0.3.0
 */
public interface PayloadConverter {

  /**
   * The payload for this value.
   *
   * @throws PayloadConversionException when the value cannot be written (the message says why)
   */
  Payload write(Object value);

  /**
   * The payload as {@code targetType}, which may be generic ({@code List<Order>}): the resolved
   * type drives the conversion.
   *
   * @param json whether the payload was scheduled as JSON
   * @return the value; null for JSON {@code null}, which a listener method is never handed (its
   *     job goes to the dead-letter set as unreadable)
   * @throws PayloadConversionException when the payload is not a {@code targetType}
   */
  Object read(byte[] payload, boolean json, Type targetType);

  /**
   * Whether {@link #read} can produce {@code targetType} at all, whatever the bytes. Asked once
   * for each {@code @DelayqListener} method's payload type when the application starts, so that a
   * listener that could never receive its payload fails the start instead of sending every job to
   * the dead-letter set. The default says yes; a converter that reads only some types says which.
   */
  default boolean canRead(Type targetType) {
    return true;
  }

  /** Payload bytes, and whether they are JSON text. */
  record Payload(byte[] bytes, boolean json) {}
}
