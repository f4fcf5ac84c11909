package io.delayq.server.testing;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** A small client of the HTTP API for tests: JSON in and out, every answer kept whole. */
public final class ApiClient {
  /** Reads numbers exactly, as the server keeps them, so that a test sees what was sent. */
  public static final ObjectMapper JSON = new ObjectMapper()
      .enable(com.fasterxml.jackson.databind.DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
      .setNodeFactory(com.fasterxml.jackson.databind.node.JsonNodeFactory.withExactBigDecimals(true));
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).version(HttpClient.Version.HTTP_1_1).build();

  private final String baseUrl;
  private final String token;

  /** @param token the bearer token to send, or null for none */
  public ApiClient(String baseUrl, String token) {
    this.baseUrl = baseUrl;
    this.token = token;
  }

  public ApiClient(String baseUrl) {
    this(baseUrl, null);
  }

  public ApiClient withToken(String otherToken) {
    return new ApiClient(baseUrl, otherToken);
  }

  public String baseUrl() {
    return baseUrl;
  }

  /** An answer: status, headers and body text, with the body parsed as JSON on demand. */
  public record Reply(int status, HttpHeaders headers, String body) {
    public JsonNode json() {
      try {
        return JSON.readTree(body);
      } catch (JsonProcessingException e) {
        throw new AssertionError("not JSON (status " + status + "): " + body, e);
      }
    }

    public String header(String name) {
      return headers.firstValue(name).orElse(null);
    }

    @Override
    public String toString() {
      return status + " " + body;
    }
  }

  public Reply get(String path) {
    return send("GET", path, null, null);
  }

  public Reply delete(String path) {
    return send("DELETE", path, null, null);
  }

  /** POST with no body. */
  public Reply post(String path) {
    return send("POST", path, null, null);
  }

  /** POST {@code body} (a JSON tree, a map, a list...) as JSON. */
  public Reply post(String path, Object body) {
    return send("POST", path, "application/json", json(body));
  }

  public Reply put(String path, Object body) {
    return send("PUT", path, "application/json", json(body));
  }

  public Reply patch(String path, Object body) {
    return send("PATCH", path, "application/json", json(body));
  }

  /** Any request; {@code body} null for none. */
  public Reply send(String method, String path, String contentType, byte[] body) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(Duration.ofSeconds(90));
    if (contentType != null) {
      request.header("Content-Type", contentType);
    }
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    request.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
    try {
      HttpResponse<String> response = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      return new Reply(response.statusCode(), response.headers(), response.body());
    } catch (IOException e) {
      throw new UncheckedIOException(method + " " + path + " failed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /** Every queue's stats, following the queue list's {@code Link: rel="next"} pages. */
  public java.util.List<JsonNode> allQueues() {
    java.util.List<JsonNode> all = new java.util.ArrayList<>();
    String next = "/v1/queues?limit=1000";
    while (next != null) {
      Reply page = get(next);
      if (page.status() != 200) {
        throw new IllegalStateException("the queue list answered " + page);
      }
      page.json().forEach(all::add);
      String link = page.header("Link");
      next = link == null ? null : link.substring(link.indexOf('<') + 1, link.indexOf('>'));
    }
    return all;
  }

  public static byte[] json(Object body) {
    try {
      return body instanceof String text ? text.getBytes(StandardCharsets.UTF_8) : JSON.writeValueAsBytes(body);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(e);
    }
  }
}
