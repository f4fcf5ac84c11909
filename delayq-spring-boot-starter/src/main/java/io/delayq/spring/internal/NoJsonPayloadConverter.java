package io.delayq.spring.internal;

import io.delayq.spring.PayloadConversionException;
import java.lang.reflect.Type;

/** For an application without Jackson: text and bytes only, and a clear word for anything else. */
public final class NoJsonPayloadConverter extends TextOrJsonConverter {
  private static final String ACTION =
      "; add tools.jackson.core:jackson-databind (or spring-boot-starter-json) to the application, "
          + "or declare a PayloadConverter bean";

  @Override
  public boolean canRead(Type targetType) {
    return targetType == String.class || targetType == byte[].class;
  }

  @Override
  protected byte[] writeJson(Object value) {
    throw new PayloadConversionException(
        "a " + value.getClass().getName() + " can only be scheduled as JSON, and there is no JSON mapper" + ACTION,
        null);
  }

  @Override
  protected Object readJson(byte[] payload, Type targetType) {
    throw new PayloadConversionException(
        "a payload can only be read as " + describe(targetType) + " from JSON, and there is no JSON mapper" + ACTION,
        null);
  }
}
