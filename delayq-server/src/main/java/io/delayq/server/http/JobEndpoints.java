package io.delayq.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.delayq.InvalidRequestException;
import io.delayq.JobActiveException;
import io.delayq.JobFilter;
import io.delayq.JobInfo;
import io.delayq.JobQueue;
import io.delayq.JobRequest;
import io.delayq.JobState;
import io.delayq.Page;
import io.delayq.ScheduledJob;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.IntSupplier;

/** Producers' calls: schedule one or many, look up, list, cancel, reschedule. */
final class JobEndpoints {
  static final int MAX_BATCH = 1000;
  static final int DEFAULT_LIST_LIMIT = 100;
  static final int MAX_LIST_LIMIT = 1000;
  private static final Set<String> RESCHEDULE_FIELDS = Fields.names("delayMs", "runAt");

  private final Queues queues;
  private final ServerMetrics metrics;

  JobEndpoints(Queues queues, ServerMetrics metrics) {
    this.queues = queues;
    this.metrics = metrics;
  }

  /** {@code POST /v1/queues/{queue}/jobs} → 201 {@code {"id","runAt","outcome"}}. */
  Response schedule(Request request) throws Exception {
    String name = request.path("queue");
    JsonNode body = request.json(BodyLimits.JOB_BYTES);
    JobRequests.Parsed parsed = JobRequests.parse(body, "body", "");
    ScheduledJob scheduled = queues.writing(name, () -> {
      DefaultMaxAttempts defaults = new DefaultMaxAttempts(queues, name);
      return defaults.queue().schedule(parsed.resolve(defaults));
    });
    metrics.scheduled(name, List.of(scheduled));
    return Response.json(201, Views.scheduled(scheduled))
        .withHeader("Location", "/v1/queues/" + PathCodec.encodeSegment(name) + "/jobs/" + PathCodec.encodeSegment(scheduled.id()));
  }

  /**
   * {@code POST /v1/queues/{queue}/jobs:batch} → 201 array in request order. Every element is
   * checked before anything is written; a bad one is a 400 naming {@code [i].field}.
   */
  Response scheduleBatch(Request request) throws Exception {
    String name = request.path("queue");
    List<JsonNode> body = request.jsonArray(BodyLimits.BATCH_BYTES, MAX_BATCH, "jobs");
    List<JobRequests.Parsed> parsed = new ArrayList<>(body.size());
    for (int i = 0; i < body.size(); i++) {
      parsed.add(JobRequests.parse(body.get(i), "[" + i + "]", "[" + i + "]."));
    }
    DefaultMaxAttempts defaults = new DefaultMaxAttempts(queues, name);
    List<JobRequest> jobs = queues.writing(name, () -> parsed.stream().map(p -> p.resolve(defaults)).toList());
    List<ScheduledJob> scheduled;
    try {
      scheduled = queues.writing(name, () -> defaults.queue().scheduleAll(jobs));
    } catch (JobActiveException refused) {
      if (refused.batchResults().isEmpty()) {
        throw refused;
      }
      return partlyRefused(name, jobs, refused);
    }
    metrics.scheduled(name, scheduled);
    ArrayNode answer = Json.array();
    scheduled.forEach(job -> answer.add(Views.scheduled(job)));
    return Response.json(201, answer);
  }

  /**
   * A batch some of whose jobs a worker holds: the others were scheduled. The 409 lists every
   * element's outcome, with the ids generated for elements that had none, so that a client can
   * retry exactly the refused ones and never schedule the rest twice.
   */
  private Response partlyRefused(String name, List<JobRequest> jobs, JobActiveException refused) {
    List<ScheduledJob> results = refused.batchResults();
    ArrayNode outcomes = Json.array();
    List<ScheduledJob> written = new ArrayList<>();
    for (int i = 0; i < results.size(); i++) {
      ScheduledJob job = results.get(i);
      if (job == null) {
        outcomes.add(Json.object().put("id", jobs.get(i).id()).put("outcome", "refused_active"));
      } else {
        outcomes.add(Views.scheduled(job));
        written.add(job);
      }
    }
    metrics.scheduled(name, written);
    ObjectNode body = ErrorMapping.body("conflict", refused.getMessage(), null);
    body.set("results", outcomes);
    return Response.json(409, body);
  }

  /** {@code GET /v1/queues/{queue}/jobs/{id}} → the job view, or 404. */
  Response get(Request request) {
    String id = Queues.checkId(request.path("id"));
    JobQueue queue = queues.existing(request.path("queue"));
    JobInfo job = queue.get(id).orElseThrow(() -> noJob(queue, id));
    return Response.ok(Views.job(job));
  }

  /**
   * {@code GET /v1/queues/{queue}/jobs?state=scheduled|due|active|expired|dead&cursor=C&limit=N} →
   * 200 {@code {"jobs":[job views], "nextCursor": string or null}}: one page, in the state's order,
   * at most {@code limit} jobs (default 100) and about 1 MiB of payloads.
   */
  Response list(Request request) {
    JobFilter filter = filter(request.query("state"));
    int limit = (int) request.queryInteger("limit", 1, MAX_LIST_LIMIT, DEFAULT_LIST_LIMIT);
    JobQueue queue = queues.existing(request.path("queue"));
    Page<JobInfo> page = queue.admin().listJobs(filter, request.query("cursor"), limit);
    ArrayNode jobs = Json.array();
    page.items().forEach(job -> jobs.add(Views.job(job)));
    ObjectNode answer = Json.object();
    answer.set("jobs", jobs);
    if (page.nextCursor().isPresent()) {
      answer.put("nextCursor", page.nextCursor().get());
    } else {
      answer.putNull("nextCursor");
    }
    return Response.ok(answer);
  }

  private static JobFilter filter(String state) {
    String accepted = "scheduled, due, active, expired or dead";
    if (state == null) {
      throw new InvalidRequestException("state", "is missing; give the state of the jobs to list: " + accepted);
    }
    for (JobFilter filter : JobFilter.values()) {
      if (filter.name().toLowerCase(Locale.ROOT).equals(state)) {
        return filter;
      }
    }
    throw new InvalidRequestException(
        "state", "must be " + accepted + "; got '" + PathCodec.abbreviate(state) + "'");
  }

  /** {@code DELETE /v1/queues/{queue}/jobs/{id}} → 204; 404 when no such scheduled job; 409 when active. */
  Response cancel(Request request) {
    String id = Queues.checkId(request.path("id"));
    JobQueue queue = queues.existing(request.path("queue"));
    if (queue.cancel(id)) {
      return Response.noContent();
    }
    Optional<JobInfo> now = queue.get(id);
    if (now.isPresent() && now.get().state() == JobState.DEAD) {
      throw ApiException.notFound(
          "job '" + id + "' in queue '" + queue.name() + "' is dead, not scheduled; delete it with"
              + " DELETE /v1/queues/{queue}/dead/{id} or requeue it with POST /v1/queues/{queue}/dead/{id}/requeue");
    }
    throw noJob(queue, id);
  }

  /** {@code PATCH /v1/queues/{queue}/jobs/{id}} {@code {"delayMs"} | {"runAt"}} → 200 {@code {"id","runAt"}}. */
  Response reschedule(Request request) throws Exception {
    String id = Queues.checkId(request.path("id"));
    JsonNode body = request.json(BodyLimits.SMALL_BYTES);
    Fields fields = Fields.of(body, "body", "", RESCHEDULE_FIELDS);
    if (fields.has("delayMs") == fields.has("runAt")) {
      throw new InvalidRequestException(
          "delayMs",
          fields.has("delayMs")
              ? "and runAt were both given; give one of them"
              : "is missing; give delayMs (milliseconds from now) or runAt (epoch ms or ISO-8601)");
    }
    JobQueue queue = queues.existing(request.path("queue"));
    OptionalLong delayMs = fields.integer("delayMs", 0, JobRequests.MAX_DELAY_MS);
    ScheduledJob moved =
        delayMs.isPresent()
            ? queue.reschedule(id, Duration.ofMillis(delayMs.getAsLong()))
            : queue.reschedule(id, JobRequests.runAt("runAt", fields.raw("runAt")));
    return Response.ok(Views.rescheduled(moved));
  }

  static ApiException noJob(JobQueue queue, String id) {
    return ApiException.notFound(
        "no job '" + id + "' in queue '" + queue.name() + "': it may have run and been acked, been cancelled,"
            + " or never been scheduled");
  }

  /**
   * The queue, created only once the request is known to be valid, and its stored default max
   * attempts, read at most once and only when a job leaves it out.
   */
  static final class DefaultMaxAttempts implements IntSupplier {
    private final Queues queues;
    private final String name;
    private JobQueue queue;
    private int value = -1;

    DefaultMaxAttempts(Queues queues, String name) {
      this.queues = queues;
      this.name = name;
    }

    JobQueue queue() {
      if (queue == null) {
        queue = queues.create(name);
      }
      return queue;
    }

    @Override
    public int getAsInt() {
      if (value < 0) {
        value = queues.defaults(queue()).maxAttempts();
      }
      return value;
    }
  }
}
