package io.delayq.server.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.delayq.InvalidRequestException;
import io.delayq.JobQueue;
import io.delayq.Page;
import io.delayq.Schedule;
import io.delayq.ScheduleInfo;
import io.delayq.ScheduleNotFoundException;
import io.delayq.ScheduledJob;
import io.delayq.internal.Recurrence;
import java.util.List;
import java.util.function.Supplier;

/**
 * A queue's recurring schedules: list, look up, store, remove, pause, resume, run now. Reads and
 * every change but {@code PUT} look the queue up without creating it; {@code PUT} creates it, once
 * the body is known to be valid.
 */
final class ScheduleEndpoints {
  static final int DEFAULT_LIST_LIMIT = 100;
  static final int MAX_LIST_LIMIT = 1000;
  /** Bytes of views a page of the list holds at most, unless its only view is larger: as a job listing page. */
  static final int PAGE_BYTES = 1024 * 1024;
  /** Definitions read at first for a page; later reads are sized by the views read so far. */
  private static final int FIRST_READ = 16;

  private final Queues queues;
  private final ServerMetrics metrics;

  ScheduleEndpoints(Queues queues, ServerMetrics metrics) {
    this.queues = queues;
    this.metrics = metrics;
  }

  /**
   * {@code GET /v1/queues/{queue}/schedules?limit=N&cursor=C} → 200 {@code {"schedules":[views, by
   * name], "nextCursor": string or null}}: at most {@code limit} schedules (default 100) and about
   * {@link #PAGE_BYTES} of views, as a page of the job listing; or 404.
   */
  Response list(Request request) {
    int limit = (int) request.queryInteger("limit", 1, MAX_LIST_LIMIT, DEFAULT_LIST_LIMIT);
    String cursor = cursor(request.query("cursor"));
    JobQueue queue = queues.existing(request.path("queue"));
    ArrayNode views = Json.array();
    long bytes = 0;
    String last = null;
    boolean more = false;
    // why: each definition is read whole, payload included: a first read of a few, then reads sized
    // by what the views so far weigh, keep a list of 1 MiB payloads from reading 100 of them at once
    int read = Math.min(limit, FIRST_READ);
    String from = cursor;
    reading:
    while (views.size() < limit) {
      Page<ScheduleInfo> page = queue.schedules().list(from, Math.min(read, limit - views.size()));
      for (ScheduleInfo info : page.items()) {
        ObjectNode view = ScheduleJson.view(info);
        int size = Json.write(view).length + 1;
        if (!views.isEmpty() && bytes + size > PAGE_BYTES) {
          more = true;
          break reading;
        }
        views.add(view);
        bytes += size;
        last = info.name();
      }
      more = page.nextCursor().isPresent();
      if (!more) {
        break;
      }
      from = page.nextCursor().get();
      long average = Math.max(1, bytes / Math.max(1, views.size()));
      read = (int) Math.max(1, Math.min(MAX_LIST_LIMIT, (PAGE_BYTES - bytes) / average + 1));
    }
    ObjectNode answer = Json.object();
    answer.set("schedules", views);
    if (more && last != null) {
      // why: the core pages by name, after the cursor's name, whether or not that schedule still
      // exists; so the name of the last schedule shown is where the next page starts
      answer.put("nextCursor", last);
    } else {
      answer.putNull("nextCursor");
    }
    return Response.ok(answer);
  }

  /** A cursor is a name a page ended at, or absent. */
  private static String cursor(String text) {
    if (text == null) {
      return null;
    }
    try {
      return Schedule.checkName(text);
    } catch (InvalidRequestException e) {
      throw new InvalidRequestException(
          "cursor", "'" + PathCodec.abbreviate(text) + "' is not a cursor of this listing; leave it out to start at"
              + " the first schedule, or pass the nextCursor of the previous page");
    }
  }

  /** {@code GET /v1/queues/{queue}/schedules/{name}} → 200 the view, or 404. */
  Response get(Request request) {
    String name = Schedule.checkName(request.path("name"));
    JobQueue queue = queues.existing(request.path("queue"));
    ScheduleInfo info = queue.schedules().get(name).orElseThrow(() -> noSchedule(queue.name(), name));
    return Response.ok(ScheduleJson.view(info));
  }

  /**
   * {@code PUT /v1/queues/{queue}/schedules/{name}} → 201 the view when new (with a {@code
   * Location}), 200 when it replaced a stored one. The body is the whole definition: a field left
   * out takes its default, not the stored value.
   */
  Response put(Request request) throws Exception {
    String queueName = request.path("queue");
    String name = Schedule.checkName(request.path("name"));
    ScheduleRequests.Parsed parsed = ScheduleRequests.parse(name, request.json(BodyLimits.JOB_BYTES));
    // why: opening the queue for the store creates it; a schedule the core would refuse (an end in
    // the past, no occurrence left) is refused first, so that a 400 leaves nothing behind
    Recurrence.checkFires(parsed.schedule(), System.currentTimeMillis());
    ScheduleInfo stored = queues.writing(queueName, () -> {
      JobEndpoints.DefaultMaxAttempts defaults = new JobEndpoints.DefaultMaxAttempts(queues, queueName);
      Schedule schedule = parsed.resolve(defaults);
      return defaults.queue().schedules().set(schedule);
    });
    // why: the answer is what this store wrote (the core reads nothing after it), and its version
    // counts the stores of this schedule since it was (re)created, in the same step as the store:
    // of racing PUTs of a new schedule, exactly one sees version 1 and answers 201
    boolean created = stored.version() == 1;
    Response response = Response.json(created ? 201 : 200, ScheduleJson.view(stored));
    return created ? response.withHeader("Location", path(queueName, name)) : response;
  }

  /** {@code DELETE /v1/queues/{queue}/schedules/{name}} → 204, or 404. */
  Response delete(Request request) {
    String name = Schedule.checkName(request.path("name"));
    JobQueue queue = queues.existing(request.path("queue"));
    if (!queue.schedules().remove(name)) {
      throw noSchedule(queue.name(), name);
    }
    return Response.noContent();
  }

  /** {@code POST /v1/queues/{queue}/schedules/{name}/pause} → 200 the view, or 404. */
  Response pause(Request request) {
    String name = Schedule.checkName(request.path("name"));
    JobQueue queue = queues.existing(request.path("queue"));
    return Response.ok(ScheduleJson.view(orNotFound(queue, name, () -> queue.schedules().pause(name))));
  }

  /** {@code POST /v1/queues/{queue}/schedules/{name}/resume} → 200 the view, or 404. */
  Response resume(Request request) {
    String name = Schedule.checkName(request.path("name"));
    JobQueue queue = queues.existing(request.path("queue"));
    return Response.ok(ScheduleJson.view(orNotFound(queue, name, () -> queue.schedules().resume(name))));
  }

  /**
   * {@code POST /v1/queues/{queue}/schedules/{name}/run} → 201 {@code {"id","runAt"}} of one extra
   * job due now, outside the schedule's sequence; 404 when there is no such schedule.
   */
  Response runNow(Request request) throws Exception {
    String queueName = request.path("queue");
    String name = Schedule.checkName(request.path("name"));
    JobQueue queue = queues.existing(queueName);
    ScheduledJob job = queues.writing(queueName, () -> orNotFound(queue, name, () -> queue.schedules().runNow(name)));
    metrics.scheduled(queueName, List.of(job));
    return Response.json(201, Views.rescheduled(job))
        .withHeader("Location", "/v1/queues/" + PathCodec.encodeSegment(queueName) + "/jobs/"
            + PathCodec.encodeSegment(job.id()));
  }

  private static <T> T orNotFound(JobQueue queue, String name, Supplier<T> call) {
    try {
      return call.get();
    } catch (ScheduleNotFoundException e) {
      throw noSchedule(queue.name(), name);
    }
  }

  static ApiException noSchedule(String queue, String name) {
    return ApiException.notFound(
        "queue '" + queue + "' has no schedule named '" + name + "'; GET " + "/v1/queues/"
            + PathCodec.encodeSegment(queue) + "/schedules lists them, PUT " + path(queue, name) + " stores one");
  }

  private static String path(String queue, String name) {
    return "/v1/queues/" + PathCodec.encodeSegment(queue) + "/schedules/" + PathCodec.encodeSegment(name);
  }
}
