package io.delayq.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.DuplicatePolicy;
import io.delayq.InvalidRequestException;
import io.delayq.JobRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Base64;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.IntSupplier;

/**
 * Turns the JSON of a schedule request ({@code {"id"?, "payload"|"payloadBase64", "delayMs"? |
 * "runAt"?, "maxAttempts"?, "onDuplicate"?}}) into a {@link JobRequest}, and the times of a
 * reschedule into a delay or an instant, with the API's field names in every error.
 */
final class JobRequests {
  static final Set<String> FIELDS =
      Fields.names("id", "payload", "payloadBase64", "delayMs", "runAt", "maxAttempts", "onDuplicate");
  /** The core's longest delay, 1000 years of 365 days: anything longer is a unit mistake. */
  static final long MAX_DELAY_MS = Duration.ofDays(365L * 1000).toMillis();
  /** 9999-12-31T23:59:59.999Z, the core's latest due time. */
  static final long MAX_RUN_AT_MS = 253_402_300_799_999L;
  static final int MAX_ATTEMPTS = 1000;

  private JobRequests() {}

  /**
   * One job as read from JSON; {@code maxAttempts} left out is filled in by {@link #resolve} with
   * the queue's stored default, which is read only once the whole request is known to be valid.
   */
  record Parsed(JobRequest request, boolean maxAttemptsGiven) {
    JobRequest resolve(IntSupplier defaultMaxAttempts) {
      return maxAttemptsGiven ? request : request.withMaxAttempts(defaultMaxAttempts.getAsInt());
    }
  }

  /**
   * Reads one job.
   *
   * @param place how errors name the object: {@code body} or {@code [i]}
   * @param prefix what errors put before field names: empty or {@code [i].}
   */
  static Parsed parse(JsonNode json, String place, String prefix) {
    Fields fields = Fields.of(json, place, prefix, FIELDS);
    JobRequest request = payload(fields);
    try {
      if (fields.has("id")) {
        request = request.withId(fields.string("id").orElseThrow());
      }
    } catch (InvalidRequestException e) {
      throw prefixed(prefix, e);
    }
    if (fields.has("delayMs") && fields.has("runAt")) {
      throw new InvalidRequestException(
          fields.name("delayMs"),
          "and runAt were both given (delayMs " + Fields.describe(fields.raw("delayMs")) + ", runAt "
              + Fields.describe(fields.raw("runAt")) + "); give one of them, or neither for 'due now'");
    }
    OptionalLong delayMs = fields.integer("delayMs", 0, MAX_DELAY_MS);
    if (delayMs.isPresent()) {
      request = request.withDelay(Duration.ofMillis(delayMs.getAsLong()));
    }
    if (fields.has("runAt")) {
      request = request.withRunAt(runAt(fields.name("runAt"), fields.raw("runAt")));
    }
    if (fields.has("onDuplicate")) {
      request = request.withOnDuplicate(onDuplicate(fields.name("onDuplicate"), fields.string("onDuplicate").orElseThrow()));
    }
    OptionalLong maxAttempts = fields.integer("maxAttempts", 1, MAX_ATTEMPTS);
    if (maxAttempts.isPresent()) {
      request = request.withMaxAttempts((int) maxAttempts.getAsLong());
    }
    return new Parsed(request, maxAttempts.isPresent());
  }

  /** A payload as a request gave it: its bytes, and whether they are JSON text to hand out as that value. */
  record Payload(byte[] bytes, boolean json) {
    static final Payload EMPTY = new Payload(new byte[0], false);
  }

  private static JobRequest payload(Fields fields) {
    Payload payload = payload(fields, true);
    return payload.json()
        ? JobRequest.ofJson(new String(payload.bytes(), StandardCharsets.UTF_8))
        : JobRequest.of(payload.bytes());
  }

  /**
   * The payload: a JSON string is stored as its UTF-8 bytes; any other JSON value (object, array,
   * number, boolean, null) as its JSON text, marked as JSON so that it is handed out as that same
   * value; {@code payloadBase64} as the bytes it decodes to.
   *
   * @param required whether leaving both out is refused; otherwise it is an empty payload
   */
  static Payload payload(Fields fields, boolean required) {
    boolean value = fields.present("payload");
    boolean binary = fields.has("payloadBase64");
    if (!value && !binary && !required) {
      return Payload.EMPTY;
    }
    if (value == binary) {
      throw new InvalidRequestException(
          fields.name("payload"),
          value
              ? "and payloadBase64 were both given; give payload (any JSON value) or payloadBase64 (binary data), not both"
              : "is missing; give payload (any JSON value; a string is stored as UTF-8 text) or payloadBase64 (binary data)");
    }
    Payload payload;
    if (value && fields.raw("payload").isTextual()) {
      String text = fields.raw("payload").textValue();
      checkNoLoneSurrogate(fields.name("payload"), text);
      payload = new Payload(text.getBytes(StandardCharsets.UTF_8), false);
    } else if (value) {
      checkNoLoneSurrogate(fields.name("payload"), fields.raw("payload"));
      payload = new Payload(Json.writeStrictly(fields.raw("payload"), fields.name("payload")), true);
    } else {
      String encoded = fields.string("payloadBase64").orElseThrow();
      payload = new Payload(strictBase64(fields.name("payloadBase64"), encoded), false);
    }
    if (payload.bytes().length > BodyLimits.PAYLOAD_BYTES) {
      throw new InvalidRequestException(
          fields.name(value ? "payload" : "payloadBase64"),
          String.format(
              "is %,d bytes; the limit is %,d. Store the body elsewhere and schedule its key",
              payload.bytes().length, BodyLimits.PAYLOAD_BYTES));
    }
    return payload;
  }

  /**
   * Decodes base64 in its one canonical form (RFC 4648 standard alphabet, with padding): the
   * JDK's decoder also takes unpadded input and stray bits, so two different strings could
   * decode to the same bytes, or a truncated one to shorter bytes, without anyone noticing.
   */
  static byte[] strictBase64(String field, String encoded) {
    byte[] bytes;
    try {
      bytes = Base64.getDecoder().decode(encoded);
    } catch (IllegalArgumentException e) {
      throw new InvalidRequestException(
          field, "is not valid base64 (" + e.getMessage() + "); use the standard alphabet (A-Z a-z 0-9 + /) with '=' padding");
    }
    if (!Base64.getEncoder().encodeToString(bytes).equals(encoded)) {
      throw new InvalidRequestException(
          field, "is not canonical base64: " + (encoded.length() % 4 != 0 ? "its length, " + encoded.length()
              + ", is not a multiple of 4 (padding '=' missing?)" : "its last character carries bits that are not part of"
              + " the data") + "; encode with the standard alphabet and '=' padding, e.g. base64(1) or"
              + " Base64.getEncoder()");
    }
    return bytes;
  }

  /** Every string and name inside a JSON payload must be text that UTF-8 can hold. */
  private static void checkNoLoneSurrogate(String field, JsonNode value) {
    if (value.isTextual()) {
      checkNoLoneSurrogate(field, value.textValue());
    } else if (value.isObject()) {
      for (Map.Entry<String, JsonNode> entry : value.properties()) {
        checkNoLoneSurrogate(field, entry.getKey());
        checkNoLoneSurrogate(field, entry.getValue());
      }
    } else if (value.isArray()) {
      for (JsonNode element : value) {
        checkNoLoneSurrogate(field, element);
      }
    }
  }

  /** JSON allows "\ud800" alone, which has no UTF-8 form: refuse it rather than store a '?'. */
  private static void checkNoLoneSurrogate(String field, String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        throw new InvalidRequestException(
            field,
            String.format("holds a lone surrogate \\u%04x at index %d, which is not text; send binary data as payloadBase64",
                (int) c, i));
      }
    }
  }

  /** A due time: epoch milliseconds, or an ISO-8601 instant string such as 2026-12-01T09:00:00Z. */
  static Instant runAt(String field, JsonNode value) {
    if (value.isTextual()) {
      Instant instant;
      try {
        instant = Instant.parse(value.textValue());
      } catch (DateTimeParseException e) {
        throw new InvalidRequestException(
            field,
            "must be epoch milliseconds or an ISO-8601 instant like 2026-12-01T09:00:00Z; got "
                + Fields.describe(value));
      }
      if (instant.isBefore(Instant.EPOCH) || instant.isAfter(Instant.ofEpochMilli(MAX_RUN_AT_MS))) {
        throw new InvalidRequestException(
            field, "must be between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z; got " + Fields.describe(value));
      }
      return instant;
    }
    return Instant.ofEpochMilli(Fields.integer(field, value, 0, MAX_RUN_AT_MS));
  }

  static DuplicatePolicy onDuplicate(String field, String value) {
    return switch (value) {
      case "replace" -> DuplicatePolicy.REPLACE;
      case "keep" -> DuplicatePolicy.KEEP;
      default -> throw new InvalidRequestException(
          field, "must be \"replace\" or \"keep\"; got \"" + PathCodec.abbreviate(value) + "\"");
    };
  }

  /** The core's refusal of a field, renamed to its place in the request ({@code [3].id}). */
  static InvalidRequestException prefixed(String prefix, InvalidRequestException e) {
    if (prefix.isEmpty()) {
      return e;
    }
    String message = e.getMessage();
    String rule = message.startsWith(e.field() + ": ") ? message.substring(e.field().length() + 2) : message;
    return new InvalidRequestException(prefix + e.field(), rule);
  }
}
