package io.delayq.server.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.delayq.JobQueue;
import io.delayq.Schedule;
import io.delayq.ScheduleInfo;
import io.delayq.ScheduleNotFoundException;
import io.delayq.ScheduledJob;
import java.util.List;
import java.util.function.Supplier;

/**
 * A queue's recurring schedules: list, look up, store, remove, pause, resume, run now. Reads and
 * every change but {@code PUT} look the queue up without creating it; {@code PUT} creates it, once
 * the body is known to be valid.
 */
final class ScheduleEndpoints {
  private final Queues queues;
  private final ServerMetrics metrics;

  ScheduleEndpoints(Queues queues, ServerMetrics metrics) {
    this.queues = queues;
    this.metrics = metrics;
  }

  /** {@code GET /v1/queues/{queue}/schedules} → 200 {@code {"schedules":[views, by name]}}, or 404. */
  Response list(Request request) {
    JobQueue queue = queues.existing(request.path("queue"));
    ArrayNode schedules = Json.array();
    for (ScheduleInfo info : queue.schedules().list()) {
      schedules.add(ScheduleJson.view(info));
    }
    ObjectNode answer = Json.object();
    answer.set("schedules", schedules);
    return Response.ok(answer);
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
    ScheduleInfo stored = queues.writing(queueName, () -> {
      JobEndpoints.DefaultMaxAttempts defaults = new JobEndpoints.DefaultMaxAttempts(queues, queueName);
      Schedule schedule = parsed.resolve(defaults);
      return defaults.queue().schedules().set(schedule);
    });
    // why: the version counts the stores of this schedule since it was (re)created, in the same
    // step as the store itself, so two racing PUTs of a new schedule answer 201 once
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
