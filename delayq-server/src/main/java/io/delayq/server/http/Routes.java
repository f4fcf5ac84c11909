package io.delayq.server.http;

import java.util.List;

/**
 * Every route of the server, in one table: method, path pattern, handler. Patterns capture
 * {@code {queue}}, {@code {id}} and {@code {name}} as one URL-decoded path segment each. The same patterns label
 * the HTTP metrics and appear in {@code openapi.json} (a test checks that they all do). A route
 * names the query parameters it reads ({@link Route#reading}); any other is refused with a 400
 * naming it, before the handler runs, so a misspelt or unsupported parameter ({@code ?dryRun=true})
 * is never silently ignored.
 */
final class Routes {
  static final String GET = "GET";
  static final String POST = "POST";
  static final String PUT = "PUT";
  static final String PATCH = "PATCH";
  static final String DELETE = "DELETE";

  private Routes() {}

  static List<Route> table(
      JobEndpoints jobs, WorkerEndpoints workers, QueueEndpoints queues, ScheduleEndpoints schedules,
      SystemEndpoints system) {
    return List.of(
        // producers
        oneJob(POST,  "/v1/queues/{queue}/jobs",                     jobs::schedule),
        large(POST,   "/v1/queues/{queue}/jobs:batch",               jobs::scheduleBatch),
        route(GET,    "/v1/queues/{queue}/jobs",                     jobs::list).reading("state", "cursor", "limit"),
        route(GET,    "/v1/queues/{queue}/jobs/{id}",                jobs::get),
        route(DELETE, "/v1/queues/{queue}/jobs/{id}",                jobs::cancel),
        route(PATCH,  "/v1/queues/{queue}/jobs/{id}",                jobs::reschedule),
        // workers
        async(POST,   "/v1/queues/{queue}/claim",                    workers::claim).reading("max", "leaseMs", "waitMs"),
        route(POST,   "/v1/queues/{queue}/jobs/{id}/ack",            workers::ack),
        route(POST,   "/v1/queues/{queue}/jobs/{id}/nack",           workers::nack),
        settle(POST,  "/v1/queues/{queue}/settle",                   workers::settle),
        route(POST,   "/v1/queues/{queue}/jobs/{id}/lease",          workers::extendLease),
        // queues
        route(GET,    "/v1/queues",                                  queues::list).reading("limit", "cursor"),
        route(GET,    "/v1/queues/{queue}",                          queues::get),
        route(PUT,    "/v1/queues/{queue}",                          queues::put),
        route(DELETE, "/v1/queues/{queue}",                          queues::delete).reading("force"),
        route(POST,   "/v1/queues/{queue}/pause",                    queues::pause),
        route(POST,   "/v1/queues/{queue}/resume",                   queues::resume),
        route(GET,    "/v1/queues/{queue}/dead",                     queues::dead).reading("limit"),
        route(POST,   "/v1/queues/{queue}/dead/{id}/requeue",        queues::requeue),
        route(DELETE, "/v1/queues/{queue}/dead/{id}",                queues::deleteDead),
        // recurring schedules
        route(GET,    "/v1/queues/{queue}/schedules",                schedules::list).reading("limit", "cursor"),
        route(GET,    "/v1/queues/{queue}/schedules/{name}",         schedules::get),
        oneJob(PUT,   "/v1/queues/{queue}/schedules/{name}",         schedules::put),
        route(DELETE, "/v1/queues/{queue}/schedules/{name}",         schedules::delete),
        route(POST,   "/v1/queues/{queue}/schedules/{name}/pause",   schedules::pause),
        route(POST,   "/v1/queues/{queue}/schedules/{name}/resume",  schedules::resume),
        route(POST,   "/v1/queues/{queue}/schedules/{name}/run",     schedules::runNow),
        // operations
        open(GET,     "/health",                                     system::health).ignoringQuery(),
        open(GET,     "/health/live",                                system::live).ignoringQuery(),
        open(GET,     "/health/ready",                               system::health).ignoringQuery(),
        route(GET,    "/metrics",                                    system::metrics).ignoringQuery(),
        route(GET,    "/openapi.json",                               system::openApi));
  }

  /** A route with a small body (at most {@link BodyLimits#SMALL_BYTES}), answering at once. */
  private static Route route(String method, String pattern, Route.Handler handler) {
    return new Route(method, pattern, handler, false);
  }

  /** A route that answers without a token. */
  private static Route open(String method, String pattern, Route.Handler handler) {
    return new Route(method, pattern, Route.sync(handler), true, BodyLimits.SMALL_BYTES);
  }

  /** A route whose answer may come later (a long poll). */
  private static Route async(String method, String pattern, Route.AsyncHandler handler) {
    return new Route(method, pattern, handler, false, BodyLimits.SMALL_BYTES);
  }

  /** A route taking one job's body, up to {@link BodyLimits#JOB_BYTES}. */
  private static Route oneJob(String method, String pattern, Route.Handler handler) {
    return new Route(method, pattern, Route.sync(handler), false, BodyLimits.JOB_BYTES);
  }

  /** The batch settle, taking up to {@link BodyLimits#SETTLE_BYTES}. */
  private static Route settle(String method, String pattern, Route.Handler handler) {
    return new Route(method, pattern, Route.sync(handler), false, BodyLimits.SETTLE_BYTES);
  }

  /** A route taking a batch body, up to {@link BodyLimits#BATCH_BYTES}. */
  private static Route large(String method, String pattern, Route.Handler handler) {
    return new Route(method, pattern, Route.sync(handler), false, BodyLimits.BATCH_BYTES);
  }
}
