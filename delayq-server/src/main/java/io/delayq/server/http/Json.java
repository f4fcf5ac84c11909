package io.delayq.server.http;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.delayq.InvalidRequestException;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Reading and writing JSON. Requests are parsed into {@link JsonNode} trees only, never bound to
 * classes: no polymorphic typing, no type named by the client is ever instantiated. The parser
 * refuses duplicate keys, trailing tokens, deep nesting and over-long strings, numbers and names.
 */
final class Json {
  /** Deepest nesting accepted: a batch is an array of objects, so 2 is all a valid request needs. */
  static final int MAX_NESTING = 8;
  /** Longest string token: a whole batch body, the largest request there is. */
  static final int MAX_STRING_CHARS = BodyLimits.BATCH_BYTES;
  /** Longest number token, in characters; a long has 19 digits. */
  static final int MAX_NUMBER_CHARS = 40;
  static final int MAX_NAME_CHARS = 256;

  private static final ObjectMapper MAPPER = createMapper();

  private Json() {}

  static ObjectMapper createMapper() {
    JsonFactory factory =
        JsonFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .streamReadConstraints(
                StreamReadConstraints.builder()
                    .maxNestingDepth(MAX_NESTING)
                    .maxStringLength(MAX_STRING_CHARS)
                    .maxNumberLength(MAX_NUMBER_CHARS)
                    .maxNameLength(MAX_NAME_CHARS)
                    .build())
            .build();
    return new ObjectMapper(factory).enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
  }

  /**
   * Parses a request body.
   *
   * @throws InvalidRequestException with field {@code body} when it is empty or not valid JSON
   */
  static JsonNode parse(byte[] body) {
    if (body.length == 0) {
      throw new InvalidRequestException("body", "is empty; send a JSON document");
    }
    try {
      JsonNode tree = MAPPER.readTree(body);
      if (tree == null || tree.isMissingNode()) {
        throw new InvalidRequestException("body", "holds no JSON value; send a JSON document");
      }
      return tree;
    } catch (StreamConstraintsException e) {
      throw new InvalidRequestException("body", "breaks a limit of this API: " + e.getOriginalMessage());
    } catch (JsonProcessingException e) {
      JsonLocation at = e.getLocation();
      throw new InvalidRequestException(
          "body",
          "is not valid JSON: " + e.getOriginalMessage()
              + (at == null ? "" : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static byte[] write(JsonNode node) {
    try {
      return MAPPER.writeValueAsBytes(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write a JSON tree", e);
    }
  }

  static ObjectNode object() {
    return JsonNodeFactory.instance.objectNode();
  }

  static ArrayNode array() {
    return JsonNodeFactory.instance.arrayNode();
  }
}
