package io.delayq.server.web;

import io.delayq.Delayq;
import io.delayq.JobFilter;
import io.delayq.JobInfo;
import io.delayq.JobQueue;
import io.delayq.JobSummary;
import io.delayq.Page;
import io.delayq.ScheduledJob;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The queue detail page ({@code /queues/{queue}?state=}), the job page and its raw payload, and
 * the per-job actions: cancel, reschedule, run now, and for dead jobs requeue and delete.
 */
final class JobPages {
  /** Jobs per page of the queue detail. */
  static final int PAGE_SIZE = 50;
  private final Delayq delayq;

  JobPages(Delayq delayq) {
    this.delayq = delayq;
  }

  /** {@code GET /queues/{queue}?state=scheduled|due|active|expired|dead&cursor=}. */
  WebResponse queue(WebRequest request, PageContext page) {
    JobQueue queue = QueuePages.existing(delayq, request.pathParam("queue"));
    String state = request.queryOrNull("state") == null ? "scheduled" : request.query("state").toLowerCase(Locale.ROOT);
    JobFilter filter = switch (state) {
      case "scheduled" -> JobFilter.SCHEDULED;
      case "due" -> JobFilter.DUE;
      case "active" -> JobFilter.ACTIVE;
      case "expired" -> JobFilter.EXPIRED;
      case "dead" -> JobFilter.DEAD;
      default -> throw WebException.badRequest("state '" + Display.visible(Inputs.abbreviate(request.query("state")))
          + "' is not one of scheduled, due, active, expired, dead");
    };
    String cursor = request.queryOrNull("cursor");
    // why: the table shows no payloads; without them a page holds PAGE_SIZE jobs however large they are
    Page<JobSummary> jobs = queue.admin().listJobSummaries(filter, cursor, PAGE_SIZE);
    Map<String, Object> params = new HashMap<>();
    params.put("queue", queue.name());
    params.put("stats", queue.admin().stats());
    params.put("state", state);
    params.put("jobs", jobs.items().stream().map(JobSummary::job).toList());
    params.put("now", Instant.now());
    params.put("paged", cursor != null);
    params.put("next", jobs.nextCursor().map(c -> page.link("queues", queue.name()) + "?state=" + state + "&cursor="
        + PageContext.queryValue(c)).orElse(""));
    return page.page("queue.jte", params);
  }

  /** {@code GET /queues/{queue}/jobs/{id}}. */
  WebResponse job(WebRequest request, PageContext page) {
    String id = Inputs.jobId(request.pathParam("id"));
    JobQueue queue = QueuePages.existing(delayq, request.pathParam("queue"));
    JobInfo job = find(queue, id);
    Map<String, Object> params = new HashMap<>();
    params.put("queue", queue.name());
    params.put("job", job);
    params.put("payload", PayloadView.of(job.payload(), job.payloadIsJson()));
    params.put("now", Instant.now());
    return page.page("job.jte", params);
  }

  /** {@code GET /queues/{queue}/jobs/{id}/payload}: the payload's bytes, as a download. */
  WebResponse payload(WebRequest request, PageContext page) {
    String id = Inputs.jobId(request.pathParam("id"));
    JobQueue queue = QueuePages.existing(delayq, request.pathParam("queue"));
    JobInfo job = find(queue, id);
    return new WebResponse(200, "application/octet-stream", job.payload(), Map.of(
        "Content-Disposition", "attachment; filename=\"" + fileName(job.id()) + ".bin\""));
  }

  /** A download's file name: the id's safe characters only, so no header or path trick gets through. */
  static String fileName(String id) {
    String safe = id.replaceAll("[^A-Za-z0-9._-]", "_").replaceAll("^\\.+", "_");
    return safe.length() > 100 ? safe.substring(0, 100) : safe;
  }

  private static JobInfo find(JobQueue queue, String id) {
    return queue.get(id).orElseThrow(() -> WebException.notFound("queue '" + queue.name() + "' has no job '" + Display.visible(id)
        + "': it was done and acked, cancelled or deleted, or never scheduled"));
  }

  /** {@code POST /queues/{queue}/jobs/{id}/cancel}. */
  WebResponse cancel(WebRequest request, PageContext page) {
    String id = Inputs.jobId(request.pathParam("id"));
    JobQueue queue = QueuePages.existing(delayq, request.pathParam("queue"));
    if (!queue.cancel(id)) {
      throw WebException.notFound("queue '" + queue.name() + "' has no scheduled job '" + Display.visible(id) + "' to cancel: it may"
          + " have run, been cancelled, or be dead already");
    }
    return page.flash(200, true, "job '" + Display.visible(id) + "' cancelled");
  }

  /** {@code POST /queues/{queue}/jobs/{id}/reschedule} with {@code runAt} (ISO-8601) or {@code delay} ({@code 30s}). */
  WebResponse reschedule(WebRequest request, PageContext page) {
    String id = Inputs.jobId(request.pathParam("id"));
    String runAt = request.formOrNull("runAt");
    String delay = request.formOrNull("delay");
    if ((runAt == null) == (delay == null)) {
      throw WebException.badRequest(runAt == null
          ? "give the new time: a delay such as 30s, 5m or 2h, or a date and time (runAt)"
          : "give either a delay or a date and time (runAt), not both");
    }
    Instant at = runAt == null ? null : Inputs.runAt("runAt", runAt, Instant.now());
    Duration in = delay == null ? null : Inputs.delay("delay", delay);
    JobQueue queue = QueuePages.existing(delayq, request.pathParam("queue"));
    ScheduledJob moved = at != null ? queue.reschedule(id, at) : queue.reschedule(id, in);
    return page.flash(200, true, "job '" + Display.visible(id) + "' now runs at " + Formats.time(moved.runAt()));
  }

  /** {@code POST /queues/{queue}/jobs/{id}/run-now}: due at once. */
  WebResponse runNow(WebRequest request, PageContext page) {
    String id = Inputs.jobId(request.pathParam("id"));
    JobQueue queue = QueuePages.existing(delayq, request.pathParam("queue"));
    queue.reschedule(id, Duration.ZERO);
    return page.flash(200, true, "job '" + Display.visible(id) + "' is due now");
  }

  /** {@code POST /queues/{queue}/dead/{id}/requeue}. */
  WebResponse requeue(WebRequest request, PageContext page) {
    String id = Inputs.jobId(request.pathParam("id"));
    JobQueue queue = QueuePages.existing(delayq, request.pathParam("queue"));
    if (!queue.admin().requeueDead(id)) {
      throw noDeadJob(queue, id);
    }
    return page.flash(200, true, "dead job '" + Display.visible(id) + "' requeued with a fresh set of attempts, due now");
  }

  /** {@code POST /queues/{queue}/dead/{id}/delete}. */
  WebResponse deleteDead(WebRequest request, PageContext page) {
    String id = Inputs.jobId(request.pathParam("id"));
    JobQueue queue = QueuePages.existing(delayq, request.pathParam("queue"));
    if (!queue.admin().deleteDead(id)) {
      throw noDeadJob(queue, id);
    }
    return page.flash(200, true, "dead job '" + Display.visible(id) + "' deleted");
  }

  private static WebException noDeadJob(JobQueue queue, String id) {
    return WebException.notFound("queue '" + queue.name() + "' has no dead job '" + Display.visible(id) + "': it may have been"
        + " requeued or deleted already");
  }
}
