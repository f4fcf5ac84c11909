package io.delayq.server.web;

import io.delayq.Delayq;
import java.util.List;

/**
 * Every route of the dashboard, in one table, below the prefix. {@link #page} is a GET page or
 * fragment that needs a session (when the server has a token); {@link #action} is a POST that
 * changes something: it needs a full session and the CSRF headers; {@link #open} and {@link
 * #openAction} need no session (login, logout, assets). See {@link PageHandler} for how to add a page.
 */
public final class DashboardRoutes {
  private DashboardRoutes() {}

  static List<DashboardRoute> table(Delayq delayq, Dashboard dashboard) {
    AuthPages auth = new AuthPages(dashboard);
    Assets assets = dashboard.assets();
    QueuePages queues = new QueuePages(delayq);
    return List.of(
        // sessions and static files
        open("/login",                                    auth::form),
        openAction("/login",                              auth::login),
        openAction("/logout",                             auth::logout),
        open("/assets/delayq/{hash}/{file}",
            (request, page) -> assets.own(request.pathParam("hash"), request.pathParam("file"))),
        open("/assets/{webjar}/{version}/{path+}",
            (request, page) -> assets.webjar(request.pathParam("webjar"), request.pathParam("version"),
                request.pathParam("path"))),
        // queues
        page("/",                                         queues::list),
        action("/queues/{queue}/pause",                   queues::pause),
        action("/queues/{queue}/resume",                  queues::resume));
  }

  /** A GET page or fragment; needs a session when the server has a token. */
  public static DashboardRoute page(String pattern, PageHandler handler) {
    return new DashboardRoute("GET", pattern, handler, true, false);
  }

  /** A POST action: needs a session that may write, and the CSRF headers. */
  public static DashboardRoute action(String pattern, PageHandler handler) {
    return new DashboardRoute("POST", pattern, handler, true, true);
  }

  /** A GET answered without a session (the login form, assets). */
  static DashboardRoute open(String pattern, PageHandler handler) {
    return new DashboardRoute("GET", pattern, handler, false, false);
  }

  /** A POST without a session (login, logout); the CSRF headers are still checked. */
  static DashboardRoute openAction(String pattern, PageHandler handler) {
    return new DashboardRoute("POST", pattern, handler, false, false);
  }
}
