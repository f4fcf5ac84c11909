package io.delayq.server.web;

import java.util.Objects;

/**
 * One line of the dashboard's route table ({@link DashboardRoutes}): method, path pattern (the
 * same {@code {queue}}, {@code {id}}, {@code {name}} captures as the API's, and {@code {path+}} for
 * the rest of a path), handler, and how it is admitted.
 *
 * @param method GET for pages and fragments, POST for actions
 * @param pattern e.g. {@code /queues/{queue}}, below the prefix
 * @param handler what answers
 * @param session whether it needs a session when the server has a token (all but login and assets)
 * @param writes whether it changes anything: refused for a read-only session
 */
public record DashboardRoute(String method, String pattern, PageHandler handler, boolean session, boolean writes) {
  public DashboardRoute {
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(handler, "handler");
    if (!pattern.startsWith("/")) {
      throw new IllegalArgumentException("pattern must start with '/': " + pattern);
    }
  }
}
