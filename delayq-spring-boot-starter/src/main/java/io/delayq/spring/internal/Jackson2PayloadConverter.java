package io.delayq.spring.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayq.spring.PayloadConversionException;
import java.io.IOException;
import java.lang.reflect.Type;

/** Payloads as JSON through the application's Jackson 2 {@link ObjectMapper}. */
public final class Jackson2PayloadConverter extends TextOrJsonConverter {
  private final ObjectMapper mapper;

  public Jackson2PayloadConverter(ObjectMapper mapper) {
    this.mapper = mapper;
  }

  @Override
  protected byte[] writeJson(Object value) {
    try {
      return mapper.writeValueAsBytes(value);
    } catch (JsonProcessingException e) {
      throw new PayloadConversionException(
          "a " + value.getClass().getName() + " cannot be written as JSON: " + e.getOriginalMessage(), e);
    }
  }

  @Override
  protected Object readJson(byte[] payload, Type targetType) {
    try {
      return mapper.readValue(payload, mapper.getTypeFactory().constructType(targetType));
    } catch (JsonProcessingException e) {
      throw new PayloadConversionException(
          "the payload is not a JSON " + describe(targetType) + ": " + e.getOriginalMessage(), e);
    } catch (IOException e) {
      throw new PayloadConversionException("the payload could not be read: " + e.getMessage(), e);
    }
  }
}
