package io.delayq.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.delayq.InvalidRequestException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The fields of one JSON object in a request, read with checks. Every refusal is an {@link
 * InvalidRequestException} naming the field (with the prefix of its place, e.g. {@code [3].delayMs}),
 * the rule and the value received: {@code delayMs: must be between 0 and 31536000000000; got -5}.
 * A field sent as JSON {@code null} counts as left out.
 */
final class Fields {
  private final ObjectNode node;
  private final String prefix;

  private Fields(ObjectNode node, String prefix) {
    this.node = node;
    this.prefix = prefix;
  }

  /**
   * The object {@code json}, which may hold only the {@code allowed} fields.
   *
   * @param place how to name the object in errors: {@code body}, or {@code [3]} for a batch element
   * @param prefix what to put before field names: empty, or {@code [3].}
   */
  static Fields of(JsonNode json, String place, String prefix, Set<String> allowed) {
    if (!(json instanceof ObjectNode object)) {
      throw new InvalidRequestException(place, "must be a JSON object; got " + describe(json));
    }
    List<String> unknown = new ArrayList<>();
    for (Iterator<String> names = object.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!allowed.contains(name)) {
        unknown.add(name);
      }
    }
    if (!unknown.isEmpty()) {
      throw new InvalidRequestException(
          prefix + unknown.get(0),
          "is not a field of this call; allowed: " + String.join(", ", allowed.stream().sorted().toList())
              + (unknown.size() > 1 ? " (also unknown: " + String.join(", ", unknown.subList(1, unknown.size())) + ")" : ""));
    }
    return new Fields(object, prefix);
  }

  boolean has(String name) {
    JsonNode value = node.get(name);
    return value != null && !value.isNull();
  }

  /** Whether the field is there at all, even as JSON null. */
  boolean present(String name) {
    return node.get(name) != null;
  }

  String name(String field) {
    return prefix + field;
  }

  Optional<String> string(String field) {
    if (!has(field)) {
      return Optional.empty();
    }
    JsonNode value = node.get(field);
    if (!value.isTextual()) {
      throw new InvalidRequestException(name(field), "must be a string; got " + describe(value));
    }
    return Optional.of(value.textValue());
  }

  /** {@code true} or {@code false}, or empty when left out. */
  Optional<Boolean> bool(String field) {
    if (!has(field)) {
      return Optional.empty();
    }
    JsonNode value = node.get(field);
    if (!value.isBoolean()) {
      throw new InvalidRequestException(name(field), "must be true or false; got " + describe(value));
    }
    return Optional.of(value.booleanValue());
  }

  /** A whole number in {@code [min, max]}, or empty when left out. */
  OptionalLong integer(String field, long min, long max) {
    if (!has(field)) {
      return OptionalLong.empty();
    }
    return OptionalLong.of(integer(name(field), node.get(field), min, max));
  }

  long requiredInteger(String field, long min, long max) {
    if (!has(field)) {
      throw new InvalidRequestException(name(field), "is missing; give a whole number between " + min + " and " + max);
    }
    return integer(name(field), node.get(field), min, max);
  }

  /**
   * A delivery's fencing token as a claim response gave it: a string of decimal digits (how the
   * server sends it, so that JavaScript clients never round it), or a JSON integer; 1 to {@link
   * Long#MAX_VALUE} either way.
   */
  long requiredToken(String field) {
    if (!has(field)) {
      throw new InvalidRequestException(
          name(field), "is missing; send the \"token\" string from the job's claim response");
    }
    JsonNode value = node.get(field);
    if (value.isTextual()) {
      String text = value.textValue();
      if (!text.isEmpty() && text.length() <= 19 && text.chars().allMatch(c -> c >= '0' && c <= '9')) {
        try {
          long token = Long.parseLong(text);
          if (token >= 1) {
            return token;
          }
        } catch (NumberFormatException tooLarge) {
          // refused below
        }
      }
    } else if (value.isIntegralNumber() && value.canConvertToLong() && value.longValue() >= 1) {
      return value.longValue();
    }
    throw new InvalidRequestException(
        name(field),
        "must be the \"token\" from the job's claim response: a string of digits (or a JSON integer)"
            + " between 1 and " + Long.MAX_VALUE + "; got " + describe(value));
  }

  JsonNode raw(String field) {
    return node.get(field);
  }

  /** Checks a JSON value that must be a whole number in {@code [min, max]}. */
  static long integer(String field, JsonNode value, long min, long max) {
    if (value.isIntegralNumber()) {
      if (value.canConvertToLong()) {
        long n = value.longValue();
        if (n >= min && n <= max) {
          return n;
        }
      }
      throw new InvalidRequestException(field, "must be between " + min + " and " + max + "; got " + describe(value));
    }
    throw new InvalidRequestException(
        field, "must be a whole number between " + min + " and " + max + "; got " + describe(value));
  }

  /** The value as it was sent, shortened: {@code -5}, {@code "abc"}, {@code 1.5}, {@code an object}. */
  static String describe(JsonNode value) {
    if (value == null || value.isMissingNode()) {
      return "nothing";
    }
    if (value.isObject()) {
      return "an object";
    }
    if (value.isArray()) {
      return "an array of " + value.size();
    }
    return PathCodec.abbreviate(value.toString());
  }

  static Set<String> names(String... names) {
    return Set.of(names);
  }
}
