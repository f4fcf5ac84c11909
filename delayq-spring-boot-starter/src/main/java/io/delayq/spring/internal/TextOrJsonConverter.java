package io.delayq.spring.internal;

import io.delayq.spring.PayloadConversionException;
import io.delayq.spring.PayloadConverter;
import java.lang.reflect.Type;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.ByteBuffer;

/**
 * The part every converter shares: bytes pass through, text is UTF-8, everything else goes to a
 * JSON mapper. A payload read as text must be valid UTF-8: a lossy decode would hand the listener
 * replacement characters it could mistake for data.
 */
abstract class TextOrJsonConverter implements PayloadConverter {

  @Override
  public final Payload write(Object value) {
    if (value == null) {
      throw new PayloadConversionException(
          "a job's payload must not be null; schedule an empty string or byte[] for a job without data", null);
    }
    if (value instanceof byte[] bytes) {
      return new Payload(bytes, false);
    }
    if (value instanceof String text) {
      return new Payload(text.getBytes(StandardCharsets.UTF_8), false);
    }
    return new Payload(writeJson(value), true);
  }

  @Override
  public final Object read(byte[] payload, boolean json, Type targetType) {
    if (targetType == byte[].class) {
      return payload;
    }
    if (targetType == String.class) {
      return utf8(payload);
    }
    return readJson(payload, targetType);
  }

  protected abstract byte[] writeJson(Object value);

  protected abstract Object readJson(byte[] payload, Type targetType);

  static String describe(Type type) {
    return type.getTypeName();
  }

  private static String utf8(byte[] payload) {
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(payload))
          .toString();
    } catch (CharacterCodingException e) {
      throw new PayloadConversionException(
          "the payload is not UTF-8 text; declare the parameter as byte[] to receive it as it is", e);
    }
  }
}
