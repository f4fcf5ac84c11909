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
    SchedulePages schedules = new SchedulePages(delayq);
    WorkerPages workers = new WorkerPages(delayq, java.time.Clock.systemUTC());
    HistoryPages history = new HistoryPages(delayq);
    RedisPages redis = new RedisPages(delayq, java.time.Clock.systemUTC());
    JobPages jobs = new JobPages(delayq);
    DeadBulk bulk = new DeadBulk(delayq);
    FindPage find = new FindPage(delayq);
    return List.of(
        // sessions and static files
        open(Dashboard.LOGIN,                             auth::form),
        openAction(Dashboard.LOGIN,                       auth::login),
        openAction("/logout",                             auth::logout),
        open("/assets/delayq/{hash}/{file}",
            (request, page) -> assets.own(request.pathParam("hash"), request.pathParam("file"))),
        open("/assets/{webjar}/{version}/{path+}",
            (request, page) -> assets.webjar(request.pathParam("webjar"), request.pathParam("version"),
                request.pathParam("path"))),
        // queues
        page("/",                                         queues::list),
        page("/queues/{queue}",                           jobs::queue),
        action("/queues/{queue}/pause",                   queues::pause),
        action("/queues/{queue}/resume",                  queues::resume),
        // jobs
        page("/queues/{queue}/jobs/{id}",                 jobs::job),
        page("/queues/{queue}/jobs/{id}/payload",         jobs::payload),
        page("/find",                                     find::find),
        action("/queues/{queue}/jobs/{id}/cancel",        jobs::cancel),
        action("/queues/{queue}/jobs/{id}/reschedule",    jobs::reschedule),
        action("/queues/{queue}/jobs/{id}/run-now",       jobs::runNow),
        action("/queues/{queue}/dead/{id}/requeue",       jobs::requeue),
        action("/queues/{queue}/dead/{id}/delete",        jobs::deleteDead),
        // dead jobs in bulk; count only reads, but it is a POST of the filter form like the two it leads to
        action("/queues/{queue}/dead/count",              bulk::count),
        action("/queues/{queue}/dead/requeue-matching",   bulk::requeueMatching),
        action("/queues/{queue}/dead/delete-matching",    bulk::deleteMatching),
        // schedules, workers, history, Redis
        page("/schedules",                                schedules::all),
        page("/queues/{queue}/schedules",                 schedules::ofQueue),
        action("/queues/{queue}/schedules/{name}/pause",  schedules::pause),
        action("/queues/{queue}/schedules/{name}/resume", schedules::resume),
        action("/queues/{queue}/schedules/{name}/run",    schedules::runNow),
        page("/workers",                                  workers::list),
        page("/history",                                  history::all),
        page("/queues/{queue}/history",                   history::ofQueue),
        page("/redis",                                    redis::nodes));
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
