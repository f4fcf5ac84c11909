package io.delayq.server.http;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.delayq.InvalidRequestException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Reading and writing JSON. Requests are parsed into {@link JsonNode} trees only, never bound to
 * classes: no polymorphic typing, no type named by the client is ever instantiated. The parser
 * refuses duplicate keys, trailing tokens, deep nesting and over-long strings, numbers and names.
 */
final class Json {
  /**
   * Deepest nesting accepted: a batch is an array of objects (2), and a payload may be any JSON
   * value, nested as deep as a sensible document is.
   */
  static final int MAX_NESTING = 64;
  /** Longest string token: a whole batch body, the largest request there is. */
  static final int MAX_STRING_CHARS = BodyLimits.BATCH_BYTES;
  /** Longest number token, in characters; a long has 19 digits. */
  static final int MAX_NUMBER_CHARS = 40;
  static final int MAX_NAME_CHARS = 256;

  private static final ObjectMapper MAPPER = createMapper();
  /** Reads one element of an array at a time: what follows it is the rest of the array, not trailing junk. */
  private static final ObjectReader ELEMENTS = MAPPER.reader().without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

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
    // why: a payload may be any JSON value and must come back as that value: numbers are kept as
    // decimals, exactly, rather than as doubles (1e400 would come back as "Infinity")
    return new ObjectMapper(factory)
        .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
        .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
        .setNodeFactory(JsonNodeFactory.withExactBigDecimals(true));
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
    checkUtf8Form(body);
    try {
      JsonNode tree = MAPPER.readTree(body);
      if (tree == null || tree.isMissingNode()) {
        throw new InvalidRequestException("body", "holds no JSON value; send a JSON document");
      }
      return tree;
    } catch (IOException e) {
      throw unreadable(e);
    }
  }

  /** Why a body could not be parsed, as a 400 naming {@code body}. */
  private static RuntimeException unreadable(IOException e) {
    if (e instanceof StreamConstraintsException limit) {
      return new InvalidRequestException("body", "breaks a limit of this API: " + limit.getOriginalMessage());
    }
    if (e instanceof JsonProcessingException json) {
      JsonLocation at = json.getLocation();
      return new InvalidRequestException(
          "body",
          "is not valid JSON: " + json.getOriginalMessage()
              + (at == null ? "" : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")"));
    }
    return new UncheckedIOException(e);
  }

  /**
   * Parses a request body that must be a JSON array of 1 to {@code maxElements} elements, one
   * element at a time, so that a body of millions of tiny elements is refused at the first one
   * too many instead of being turned into millions of trees first.
   *
   * @param what what the elements are, for the error ("jobs")
   * @throws InvalidRequestException with field {@code body} otherwise
   */
  static List<JsonNode> parseArray(byte[] body, int maxElements, String what) {
    if (body.length == 0) {
      throw new InvalidRequestException("body", "is empty; send a JSON array of 1 to " + maxElements + " " + what);
    }
    checkUtf8Form(body);
    try (JsonParser parser = MAPPER.createParser(body)) {
      JsonToken first = parser.nextToken();
      if (first != JsonToken.START_ARRAY) {
        JsonNode other = first == null ? null : ELEMENTS.readTree(parser);
        throw new InvalidRequestException(
            "body", "must be a JSON array of 1 to " + maxElements + " " + what + "; got " + Fields.describe(other));
      }
      List<JsonNode> elements = new ArrayList<>();
      while (parser.nextToken() != JsonToken.END_ARRAY) {
        if (elements.size() == maxElements) {
          throw new InvalidRequestException(
              "body", "holds more than " + maxElements + " " + what + "; send at most " + maxElements
                  + " per call and split larger batches");
        }
        elements.add(ELEMENTS.readTree(parser));
      }
      if (parser.nextToken() != null) {
        throw new InvalidRequestException("body", "has more after the closing ']' of its array; send one JSON array");
      }
      if (elements.isEmpty()) {
        throw new InvalidRequestException("body", "is an empty array; send 1 to " + maxElements + " " + what);
      }
      return elements;
    } catch (IOException e) {
      throw unreadable(e);
    }
  }

  /**
   * Writes a value a client sent, refusing what has no UTF-8 form (a lone surrogate in a string
   * or name) instead of writing a '?' in its place.
   *
   * @param field the field it came from, for the error
   */
  static byte[] writeStrictly(JsonNode node, String field) {
    try {
      return MAPPER.writeValueAsBytes(node);
    } catch (JsonProcessingException e) {
      throw new InvalidRequestException(field, "cannot be stored as UTF-8 JSON (" + e.getOriginalMessage()
          + "); strings must be valid Unicode text (no lone surrogates)");
    }
  }

  /** Parses JSON text that was stored, or null when it does not parse. */
  static JsonNode parseStored(byte[] json) {
    try {
      JsonNode tree = MAPPER.readTree(json);
      return tree == null || tree.isMissingNode() ? null : tree;
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /**
   * The parser would also read UTF-16, UTF-32 and a byte-order mark, and lets some byte sequences
   * that are not UTF-8 through (in names, or encoded surrogates); the API takes strict UTF-8 only,
   * so that every client and proxy reads a body the same way.
   */
  static void checkUtf8Form(byte[] body) {
    if (startsWith(body, 0xEF, 0xBB, 0xBF)) {
      throw new InvalidRequestException("body", "starts with a UTF-8 byte-order mark; send UTF-8 without one");
    }
    if (startsWith(body, 0xFE, 0xFF) || startsWith(body, 0xFF, 0xFE) || startsWith(body, 0x00, 0x00, 0xFE, 0xFF)) {
      throw new InvalidRequestException(
          "body", "starts with a UTF-16 or UTF-32 byte-order mark: it is not UTF-8; send it as UTF-8, without one");
    }
    if (body[0] == 0 || body.length >= 2 && body[1] == 0) {
      throw new InvalidRequestException("body", "is not UTF-8 (it reads as UTF-16 or UTF-32); send it as UTF-8");
    }
    CharsetDecoder strict = StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer in = ByteBuffer.wrap(body);
    // why: decoded through a small buffer that is thrown away, so a 16 MiB batch costs no copy of itself
    CharBuffer out = CharBuffer.allocate(8192);
    while (true) {
      CoderResult result = strict.decode(in, out, true);
      if (result.isError()) {
        throw new InvalidRequestException(
            "body", "is not valid UTF-8: the byte at offset " + in.position() + " (0x"
                + String.format("%02X", body[in.position()] & 0xff) + ") starts no UTF-8 sequence; send the body as UTF-8");
      }
      if (result.isOverflow()) {
        out.clear();
      } else {
        break;
      }
    }
  }

  private static boolean startsWith(byte[] body, int... prefix) {
    if (body.length < prefix.length) {
      return false;
    }
    for (int i = 0; i < prefix.length; i++) {
      if ((body[i] & 0xff) != prefix[i]) {
        return false;
      }
    }
    return true;
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
