package io.delayq.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import io.delayq.InvalidRequestException;
import java.io.IOException;
import java.io.InputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** One matched request: its path parameters, query parameters and body, each read with checks. */
final class Request {
  private final HttpExchange exchange;
  private final Map<String, String> pathParams;
  private Map<String, String> query;

  Request(HttpExchange exchange, Map<String, String> pathParams) {
    this.exchange = exchange;
    this.pathParams = pathParams;
  }

  /** A path parameter, URL-decoded; one that is not valid percent-encoded UTF-8 is a 400. */
  String path(String name) {
    String raw = pathParams.get(name);
    if (raw == null) {
      throw new IllegalStateException("route has no path parameter {" + name + "}");
    }
    return PathCodec.decodeSegment(name, raw);
  }

  String header(String name) {
    return exchange.getRequestHeaders().getFirst(name);
  }

  /**
   * The query parameters, each at most once and each one of {@code allowed}: a misspelt parameter
   * is refused rather than ignored.
   */
  Map<String, String> query(Set<String> allowed) {
    if (query == null) {
      query = parseQuery(exchange.getRequestURI().getRawQuery());
    }
    for (String name : query.keySet()) {
      if (!allowed.contains(name)) {
        throw new InvalidRequestException(
            name, "is not a query parameter of this call; allowed: " + String.join(", ", allowed.stream().sorted().toList()));
      }
    }
    return query;
  }

  /** A whole-number query parameter in {@code [min, max]}, or {@code fallback} when absent. */
  long queryInteger(Set<String> allowed, String name, long min, long max, long fallback) {
    String text = query(allowed).get(name);
    if (text == null) {
      return fallback;
    }
    try {
      long n = Long.parseLong(text);
      if (n >= min && n <= max) {
        return n;
      }
    } catch (NumberFormatException e) {
      throw new InvalidRequestException(
          name, "must be a whole number between " + min + " and " + max + "; got '" + PathCodec.abbreviate(text) + "'");
    }
    throw new InvalidRequestException(name, "must be between " + min + " and " + max + "; got " + text);
  }

  boolean hasQuery(Set<String> allowed, String name) {
    return query(allowed).containsKey(name);
  }

  static Map<String, String> parseQuery(String rawQuery) {
    Map<String, String> params = new LinkedHashMap<>();
    if (rawQuery == null || rawQuery.isEmpty()) {
      return params;
    }
    for (String pair : rawQuery.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String name;
      String value;
      try {
        name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
        value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
      } catch (IllegalArgumentException e) {
        throw new InvalidRequestException("query", "'" + PathCodec.abbreviate(pair) + "' is not URL-encoded properly");
      }
      if (params.putIfAbsent(name, value) != null) {
        throw new InvalidRequestException(name, "is given more than once; give it once");
      }
    }
    return params;
  }

  /**
   * The body as a JSON tree. It must be sent as {@code application/json} (415 otherwise) and be at
   * most {@code limit} bytes (413 otherwise: at most {@code limit + 1} bytes are kept in memory).
   */
  JsonNode json(int limit) throws IOException {
    return Json.parse(jsonBytes(limit, false));
  }

  /** Like {@link #json(int)}, but an empty body without a media type reads as {@code {}}. */
  JsonNode jsonOrEmptyObject(int limit) throws IOException {
    byte[] body = jsonBytes(limit, true);
    return body.length == 0 ? Json.object() : Json.parse(body);
  }

  private byte[] jsonBytes(int limit, boolean mayBeEmpty) throws IOException {
    String type = header("Content-Type");
    if (type == null && mayBeEmpty && declaredLength() == 0L) {
      return new byte[0];
    }
    checkJsonMediaType(type);
    return body(limit);
  }

  static void checkJsonMediaType(String type) {
    if (type == null) {
      throw ApiException.unsupportedMediaType(
          "the request has a body but no Content-Type; send it as Content-Type: application/json");
    }
    String[] parts = type.split(";");
    String media = parts[0].trim().toLowerCase(Locale.ROOT);
    if (!media.equals("application/json")) {
      throw ApiException.unsupportedMediaType(
          "Content-Type '" + PathCodec.abbreviate(type) + "' is not accepted; send the body as application/json (UTF-8)");
    }
    for (int i = 1; i < parts.length; i++) {
      String[] param = parts[i].trim().split("=", 2);
      if (param.length == 2 && param[0].trim().equalsIgnoreCase("charset")) {
        String charset = param[1].trim().replace("\"", "");
        if (!charset.equalsIgnoreCase("utf-8") && !charset.equalsIgnoreCase("utf8")) {
          throw ApiException.unsupportedMediaType(
              "charset '" + PathCodec.abbreviate(charset) + "' is not accepted; send the JSON body in UTF-8");
        }
      }
    }
  }

  /** Content-Length, or -1 when not given (a chunked body). */
  private long declaredLength() {
    String text = header("Content-Length");
    if (text == null) {
      return exchange.getRequestHeaders().containsKey("Transfer-Encoding") ? -1 : 0;
    }
    try {
      return Long.parseLong(text.trim());
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** Reads at most {@code limit} bytes of body; more is a 413, without keeping the excess. */
  byte[] body(int limit) throws IOException {
    long declared = declaredLength();
    InputStream in = exchange.getRequestBody();
    if (declared > limit) {
      discard(in, declared);
      throw tooLarge(limit, declared);
    }
    byte[] bytes = in.readNBytes(limit + 1);
    if (bytes.length > limit) {
      discard(in, BodyLimits.DISCARD_BYTES);
      throw tooLarge(limit, -1);
    }
    return bytes;
  }

  /**
   * Reads and drops what is left of an over-long body, up to {@link BodyLimits#DISCARD_BYTES}, so
   * the client reads our 413 instead of a reset connection; a longer one is cut off when the
   * connection closes.
   */
  private static void discard(InputStream in, long declared) throws IOException {
    if (declared > BodyLimits.DISCARD_BYTES) {
      return;
    }
    byte[] sink = new byte[64 * 1024];
    long left = BodyLimits.DISCARD_BYTES;
    int n;
    while (left > 0 && (n = in.read(sink, 0, (int) Math.min(sink.length, left))) >= 0) {
      left -= n;
    }
  }

  private static ApiException tooLarge(int limit, long declared) {
    return ApiException.payloadTooLarge(
        String.format(
            "the request body is %s; the limit for this call is %,d bytes. A payload may be at most %,d bytes"
                + " (as text, or as base64 in payloadBase64); store larger bodies elsewhere and schedule their"
                + " key, and split large batches",
            declared >= 0 ? String.format("%,d bytes", declared) : "over the limit",
            limit,
            BodyLimits.PAYLOAD_BYTES));
  }
}
