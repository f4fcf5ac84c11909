package io.delayq.spring.internal;

import io.delayq.spring.PayloadConversionException;
import java.lang.reflect.Type;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/** Payloads as JSON through the application's Jackson 3 {@link JsonMapper}. */
public final class JacksonPayloadConverter extends TextOrJsonConverter {
  private final JsonMapper mapper;

  public JacksonPayloadConverter(JsonMapper mapper) {
    this.mapper = mapper;
  }

  @Override
  protected byte[] writeJson(Object value) {
    try {
      return mapper.writeValueAsBytes(value);
    } catch (JacksonException e) {
      throw new PayloadConversionException(
          "a " + value.getClass().getName() + " cannot be written as JSON: " + e.getOriginalMessage(), e);
    }
  }

  @Override
  protected Object readJson(byte[] payload, Type targetType) {
    try {
      return mapper.readValue(payload, mapper.getTypeFactory().constructType(targetType));
    } catch (JacksonException e) {
      throw new PayloadConversionException(
          "the payload is not a JSON " + describe(targetType) + ": " + e.getOriginalMessage(), e);
    }
  }
}
