package io.delayq.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.InvalidRequestException;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * One matched request, read in full before its handler runs: method, path parameters, query
 * parameters, headers and body, each read with checks; and whether the client is still there.
 */
final class Request {
  private final String method;
  private final String rawQuery;
  private final HttpHeaders headers;
  private final byte[] body;
  private final Map<String, String> pathParams;
  private final Set<String> allowedQuery;
  private final CompletableFuture<Void> gone;
  private final String path;
  private Map<String, String> query;

  /** @param allowedQuery the query parameters the route reads ({@link Route#query}) */
  Request(String method, String rawQuery, HttpHeaders headers, byte[] body, Map<String, String> pathParams,
      Set<String> allowedQuery, CompletableFuture<Void> gone) {
    this(method, "/", rawQuery, headers, body, pathParams, allowedQuery, gone);
  }

  /** @param path the path as sent (below the base path), still percent-encoded */
  Request(String method, String path, String rawQuery, HttpHeaders headers, byte[] body, Map<String, String> pathParams,
      Set<String> allowedQuery, CompletableFuture<Void> gone) {
    this.path = path;
    this.method = method;
    this.rawQuery = rawQuery;
    this.headers = headers;
    this.body = body;
    this.pathParams = pathParams;
    this.allowedQuery = Set.copyOf(allowedQuery);
    this.gone = gone;
  }

  /** A request with only path parameters, for tests of routing. */
  static Request ofPath(Map<String, String> pathParams) {
    return new Request("GET", null, EmptyHttpHeaders.INSTANCE, new byte[0], pathParams, Set.of(),
        new CompletableFuture<>());
  }

  String method() {
    return method;
  }

  /** The path as sent (below the base path), still percent-encoded. */
  String rawPath() {
    return path;
  }

  /** The query string as sent, or null. */
  String rawQuery() {
    return rawQuery;
  }

  /** The names of the route's path parameters. */
  java.util.Set<String> pathNames() {
    return pathParams.keySet();
  }

  /** Every request header. */
  HttpHeaders headers() {
    return headers;
  }

  /**
   * Completes when the client closes the connection before its answer is written: a waiting claim
   * then stops waiting and hands back what it leased.
   */
  CompletableFuture<Void> gone() {
    return gone;
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
    return headers.get(name);
  }

  /**
   * Refuses a query parameter this call does not read (each route declares its own), or one given
   * twice: a misspelt or unsupported parameter is a 400 naming it, never silently ignored.
   */
  void checkQuery() {
    if (allowedQuery.contains(Route.ANY_QUERY)) {
      return;
    }
    for (String name : query().keySet()) {
      if (!allowedQuery.contains(name)) {
        throw new InvalidRequestException(
            name, "is not a query parameter of this call; "
                + (allowedQuery.isEmpty()
                    ? "it takes none"
                    : "it takes " + String.join(", ", allowedQuery.stream().sorted().toList()))
                + ". See /openapi.json");
      }
    }
  }

  private Map<String, String> query() {
    if (query == null) {
      query = parseQuery(rawQuery);
    }
    return query;
  }

  /** A query parameter the route declared, or null when absent. */
  String query(String name) {
    if (!allowedQuery.contains(name)) {
      throw new IllegalStateException("route does not declare the query parameter " + name);
    }
    return query().get(name);
  }

  /** A whole-number query parameter in {@code [min, max]}, or {@code fallback} when absent. */
  long queryInteger(String name, long min, long max, long fallback) {
    String text = query(name);
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

  boolean hasQuery(String name) {
    return query(name) != null;
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
  JsonNode json(int limit) {
    return Json.parse(jsonBytes(limit, false));
  }

  /** Like {@link #json(int)}, but an empty body without a media type reads as {@code {}}. */
  JsonNode jsonOrEmptyObject(int limit) {
    byte[] body = jsonBytes(limit, true);
    return body.length == 0 ? Json.object() : Json.parse(body);
  }

  /**
   * The body as a JSON array of at most {@code maxElements} elements, counted while parsing: a body
   * of a million tiny elements is refused at the first one too many, before it is all in memory.
   *
   * @param what what the elements are, for the error ("jobs")
   */
  List<JsonNode> jsonArray(int limit, int maxElements, String what) {
    return Json.parseArray(jsonBytes(limit, false), maxElements, what);
  }

  private byte[] jsonBytes(int limit, boolean mayBeEmpty) {
    String type = header("Content-Type");
    if (type == null && mayBeEmpty && body.length == 0) {
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

  /** The body, which must be at most {@code limit} bytes (413 otherwise). */
  byte[] body(int limit) {
    if (body.length > limit) {
      throw tooLarge(limit, body.length);
    }
    return body;
  }

  static ApiException tooLarge(int limit, long declared) {
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
