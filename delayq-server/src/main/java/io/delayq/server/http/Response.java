package io.delayq.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a handler answers: a status, a body with its media type (or none), extra headers, and what
 * to do if the answer cannot be delivered (the client has gone).
 */
record Response(int status, byte[] body, String contentType, Map<String, String> headers, Runnable onUndelivered) {
  Response(int status, byte[] body, String contentType, Map<String, String> headers) {
    this(status, body, contentType, headers, () -> {});
  }
  static final String JSON = "application/json; charset=utf-8";

  static Response json(int status, JsonNode body) {
    return new Response(status, Json.write(body), JSON, Map.of());
  }

  static Response ok(JsonNode body) {
    return json(200, body);
  }

  static Response noContent() {
    return new Response(204, null, null, Map.of());
  }

  static Response text(int status, String contentType, String body) {
    return new Response(status, body.getBytes(StandardCharsets.UTF_8), contentType, Map.of());
  }

  static Response bytes(int status, String contentType, byte[] body) {
    return new Response(status, body, contentType, Map.of());
  }

  Response withHeader(String name, String value) {
    Map<String, String> more = new LinkedHashMap<>(headers);
    more.put(name, value);
    return new Response(status, body, contentType, Map.copyOf(more), onUndelivered);
  }

  Response ifUndelivered(Runnable action) {
    return new Response(status, body, contentType, headers, action);
  }
}
