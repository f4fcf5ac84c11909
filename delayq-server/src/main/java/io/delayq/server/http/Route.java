package io.delayq.server.http;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * One line of the route table: an HTTP method, a path pattern whose {@code {name}} segments capture
 * one URL-decoded path segment each, and the handler.
 *
 * @param method the HTTP method, upper case
 * @param pattern e.g. {@code /v1/queues/{queue}/jobs/{id}}; also the {@code route} tag of metrics
 * @param handler what answers
 * @param open whether the route needs no token (the health checks only)
 * @param bodyLimit the largest request body read for this route; a longer one is a 413 before it is read
 * @param query the query parameters the handler reads; any other is a 400 before the handler runs
 * @param dashboard the dashboard's route this one serves (admitted by session, not by the bearer
 *     token, and answered in HTML), or null for the API's
 */
record Route(String method, String pattern, AsyncHandler handler, boolean open, int bodyLimit, Set<String> query,
    io.delayq.server.web.DashboardRoute dashboard) {

  /** Answers one matched request, on a handler thread (it may block on Redis). */
  @FunctionalInterface
  interface Handler {
    Response handle(Request request) throws Exception;
  }

  /**
   * Answers one matched request, possibly later: the long poll's answer is completed by a wake-up,
   * a timer or the client hanging up, holding no thread while it waits.
   */
  @FunctionalInterface
  interface AsyncHandler {
    CompletionStage<Response> handle(Request request) throws Exception;
  }

  Route {
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(handler, "handler");
    if (!pattern.startsWith("/")) {
      throw new IllegalArgumentException("pattern must start with '/': " + pattern);
    }
    if (bodyLimit < 0) {
      throw new IllegalArgumentException("bodyLimit must not be negative: " + bodyLimit);
    }
    query = Set.copyOf(query);
    List<String> parts = List.of(pattern.substring(1).split("/", -1));
    for (int i = 0; i < parts.size() - 1; i++) {
      if (parts.get(i).endsWith("+}")) {
        throw new IllegalArgumentException("a {name+} capture must be the pattern's last segment: " + pattern);
      }
    }
  }

  /** An API route. */
  Route(String method, String pattern, AsyncHandler handler, boolean open, int bodyLimit, Set<String> query) {
    this(method, pattern, handler, open, bodyLimit, query, null);
  }

  /** A route that reads no query parameter. */
  Route(String method, String pattern, AsyncHandler handler, boolean open, int bodyLimit) {
    this(method, pattern, handler, open, bodyLimit, Set.of());
  }

  /** A route answering at once, reading bodies up to {@link BodyLimits#SMALL_BYTES}. */
  Route(String method, String pattern, Handler handler, boolean open) {
    this(method, pattern, sync(handler), open, BodyLimits.SMALL_BYTES);
  }

  /** In {@link #query}: the route takes any query parameter and reads none. */
  static final String ANY_QUERY = "*";

  /**
   * This route, taking any query parameter. For the probes and the scrape only: they read none and
   * change nothing, and a monitor that adds one (a scrape's {@code params}) must not start failing.
   */
  Route ignoringQuery() {
    return new Route(method, pattern, handler, open, bodyLimit, Set.of(ANY_QUERY), dashboard);
  }

  /** This route, reading the query parameters {@code names} (and refusing any other). */
  Route reading(String... names) {
    return new Route(method, pattern, handler, open, bodyLimit, Set.of(names), dashboard);
  }

  static AsyncHandler sync(Handler handler) {
    Objects.requireNonNull(handler, "handler");
    return request -> CompletableFuture.completedFuture(handler.handle(request));
  }

  /** The pattern split at '/', without the empty first segment. */
  List<String> segments() {
    return List.of(pattern.substring(1).split("/", -1));
  }

  /**
   * The path parameters when {@code rawSegments} fit the pattern, still percent-encoded: they are
   * decoded when the handler reads them ({@link Request#path}), after the token was checked, so
   * a caller without one learns nothing from how a path decodes.
   */
  Optional<Map<String, String>> match(List<String> rawSegments) {
    List<String> mine = segments();
    boolean rest = mine.get(mine.size() - 1).endsWith("+}");
    if (rest ? rawSegments.size() < mine.size() : mine.size() != rawSegments.size()) {
      return Optional.empty();
    }
    List<String[]> captured = new ArrayList<>();
    for (int i = 0; i < mine.size(); i++) {
      String part = mine.get(i);
      String raw = rawSegments.get(i);
      if (rest && i == mine.size() - 1) {
        // {name+}: this segment and every one after it, joined by '/' as they came
        String tail = String.join("/", rawSegments.subList(i, rawSegments.size()));
        if (raw.isEmpty()) {
          return Optional.empty();
        }
        captured.add(new String[] {part.substring(1, part.length() - 2), tail});
      } else if (part.startsWith("{") && part.endsWith("}")) {
        if (raw.isEmpty()) {
          return Optional.empty();
        }
        captured.add(new String[] {part.substring(1, part.length() - 1), raw});
      } else if (!part.equals(raw)) {
        return Optional.empty();
      }
    }
    Map<String, String> params = new LinkedHashMap<>();
    for (String[] c : captured) {
      params.put(c[0], c[1]);
    }
    return Optional.of(params);
  }
}
