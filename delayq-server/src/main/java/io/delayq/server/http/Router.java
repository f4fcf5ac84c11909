package io.delayq.server.http;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/** Finds the route for a method and a raw (still percent-encoded) path. */
final class Router {
  /** The metrics label of requests that matched no route. */
  static final String UNMATCHED = "unmatched";

  /** The outcome of routing: a route with its parameters, or why there is none. */
  record Match(Route route, Map<String, String> params, List<String> allowedMethods, boolean pathOpen) {
    boolean found() {
      return route != null;
    }

    String label() {
      return route != null ? route.pattern() : UNMATCHED;
    }
  }

  private final List<Route> routes;

  Router(List<Route> routes) {
    this.routes = List.copyOf(routes);
  }

  /**
   * The route for {@code method} on {@code rawPath}. When the path matches routes of other methods
   * only, {@link Match#allowedMethods()} lists them (a 405); when it matches none, it is empty (a 404).
   */
  Match match(String method, String rawPath) {
    List<String> segments = split(rawPath);
    TreeSet<String> allowed = new TreeSet<>();
    boolean allOpen = true;
    for (Route route : routes) {
      Optional<Map<String, String>> params = route.match(segments);
      if (params.isEmpty()) {
        continue;
      }
      if (route.method().equals(method)) {
        return new Match(route, params.get(), List.of(), route.open());
      }
      allowed.add(route.method());
      allOpen &= route.open();
    }
    return new Match(null, Map.of(), new ArrayList<>(allowed), !allowed.isEmpty() && allOpen);
  }

  static List<String> split(String rawPath) {
    String path = rawPath == null || rawPath.isEmpty() ? "/" : rawPath;
    return List.of(path.substring(1).split("/", -1));
  }
}
