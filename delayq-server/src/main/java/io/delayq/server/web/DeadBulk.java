package io.delayq.server.web;

import io.delayq.Delayq;
import io.delayq.JobFilter;
import io.delayq.JobInfo;
import io.delayq.JobQueue;
import io.delayq.JobSummary;
import io.delayq.Page;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Requeue or delete many dead jobs of a queue at once, in two steps: {@code count} says how many
 * match a filter (error substring, id prefix, dead before) and answers a confirmation carrying
 * that count ({@code expected}) and the time it was made ({@code asOf}); {@code requeue-matching}
 * and {@code delete-matching} then act only on matching jobs dead at or before {@code asOf}, and
 * refuse with 409 and the new count when more match than were confirmed.
 *
 * <p>Bounded work per request: the dead-letter set is read oldest first, a page at a time, up to
 * {@link #MAX_EXAMINED} jobs and {@link #MAX_PAGES} pages, and at most {@link #MAX_ACTED} jobs are
 * moved per request; the answer says how many were done, and whether more may remain.
 */
final class DeadBulk {
  static final int MAX_EXAMINED = 10_000;
  static final int MAX_PAGES = 40;
  static final int MAX_ACTED = 1_000;
  private static final int PAGE = 500;
  /** How far ahead of this server's clock {@code asOf} may be: another server made the count. */
  static final Duration AS_OF_TOLERANCE = Duration.ofSeconds(5);
  private final Delayq delayq;

  DeadBulk(Delayq delayq) {
    this.delayq = delayq;
  }

  /** The filter of a bulk action, from its form. */
  record Filter(String error, String idPrefix, Instant deadBefore) {
    static Filter of(WebRequest request) {
      String before = request.formOrNull("deadBefore");
      return new Filter(request.formOrNull("error"), request.formOrNull("idPrefix"),
          before == null ? null : Inputs.instant("deadBefore", before));
    }

    boolean matches(JobInfo job, Instant asOf) {
      Instant deadAt = job.deadAt();
      return deadAt != null && !deadAt.isAfter(asOf)
          && (deadBefore == null || deadAt.isBefore(deadBefore))
          && (idPrefix == null || job.id().startsWith(idPrefix))
          && (error == null || job.lastError() != null && job.lastError().contains(error));
    }
  }

  /** What a scan found: the matching ids (at most {@code limit}), how many match, and whether it stopped early. */
  record Scan(List<String> ids, long matching, long examined, boolean capped) {}

  /** {@code POST /queues/{queue}/dead/count}. */
  WebResponse count(WebRequest request, PageContext page) {
    JobQueue queue = QueuePages.existing(delayq, request.pathParam("queue"));
    Filter filter = Filter.of(request);
    Instant asOf = Instant.now();
    Scan scan = scan(queue, filter, asOf, 0);
    Map<String, Object> params = new HashMap<>();
    params.put("queue", queue.name());
    params.put("count", scan.matching());
    params.put("examined", scan.examined());
    params.put("capped", scan.capped());
    params.put("asOf", asOf.toEpochMilli());
    params.put("error", filter.error() == null ? "" : filter.error());
    params.put("idPrefix", filter.idPrefix() == null ? "" : filter.idPrefix());
    params.put("deadBefore", request.formOrNull("deadBefore") == null ? "" : request.formOrNull("deadBefore"));
    return page.fragment("bulk.jte", params);
  }

  /** {@code POST /queues/{queue}/dead/requeue-matching}. */
  WebResponse requeueMatching(WebRequest request, PageContext page) {
    return act(request, page, true);
  }

  /** {@code POST /queues/{queue}/dead/delete-matching}. */
  WebResponse deleteMatching(WebRequest request, PageContext page) {
    return act(request, page, false);
  }

  private WebResponse act(WebRequest request, PageContext page, boolean requeue) {
    JobQueue queue = QueuePages.existing(delayq, request.pathParam("queue"));
    Filter filter = Filter.of(request);
    long expected = Inputs.number("expected", required(request, "expected"), 0, Long.MAX_VALUE);
    Instant asOf = asOf(required(request, "asOf"));
    Scan scan = scan(queue, filter, asOf, MAX_ACTED);
    if (scan.matching() > expected) {
      throw WebException.conflict(scan.matching() + (scan.capped() ? " or more" : "") + " dead jobs match now, more"
          + " than the " + expected + " you confirmed; nothing was " + (requeue ? "requeued" : "deleted")
          + ". Count again and confirm the new number");
    }
    long done = 0;
    for (String id : scan.ids()) {
      // why: the scan and the action are separate steps; a job requeued by someone else meanwhile
      // and dead again since asOf is no longer what was confirmed, and Redis checks that in one step
      boolean moved = requeue ? queue.admin().requeueDead(id, asOf) : queue.admin().deleteDead(id, asOf);
      if (moved) {
        done++;
      }
    }
    String verb = requeue ? "requeued" : "deleted";
    boolean more = scan.capped() || scan.matching() > scan.ids().size();
    return page.flash(200, true, done + " dead job" + (done == 1 ? "" : "s") + " " + verb
        + (done < scan.ids().size() ? " (" + (scan.ids().size() - done) + " had left the dead-letter set, or died again"
            + " after the count, and were left alone)" : "")
        + (more ? "; at most " + MAX_ACTED + " are " + verb + " per request and more may match: count again" : ""));
  }

  /**
   * The confirmed count's time: not later than now (give or take {@link #AS_OF_TOLERANCE} of clock
   * difference between the servers behind one dashboard), since a count is always of the past; a
   * later one would cover jobs that die after the confirmation.
   */
  static Instant asOf(String text) {
    Instant asOf = Instant.ofEpochMilli(Inputs.number("asOf", text, 0, 4_102_444_800_000L));
    Instant now = Instant.now();
    if (asOf.isAfter(now.plus(AS_OF_TOLERANCE))) {
      throw WebException.badRequest("asOf " + Formats.time(asOf) + " is later than this server's time ("
          + Formats.time(now) + "); it must be the time of the count you confirmed. Count the matching jobs again,"
          + " then confirm");
    }
    return asOf;
  }

  private static String required(WebRequest request, String field) {
    String value = request.formOrNull(field);
    if (value == null) {
      throw WebException.badRequest(field + " is missing: count the matching jobs first, then confirm");
    }
    return value;
  }

  /**
   * Reads the dead-letter set oldest first until a job died after {@code asOf} (later ones did
   * too), the end, or the bounds.
   *
   * @param keep how many matching ids to keep (0: count only)
   */
  private static Scan scan(JobQueue queue, Filter filter, Instant asOf, int keep) {
    List<String> ids = new ArrayList<>();
    long matching = 0;
    long examined = 0;
    String cursor = null;
    for (int pages = 0; pages < MAX_PAGES; pages++) {
      // why: summaries, since the filter reads no payload and a page then holds PAGE jobs however large
      Page<JobSummary> page = queue.admin().listJobSummaries(JobFilter.DEAD, cursor, PAGE);
      List<JobSummary> items = page.items();
      for (int i = 0; i < items.size(); i++) {
        JobInfo job = items.get(i).job();
        if (job.deadAt() != null && job.deadAt().isAfter(asOf)) {
          return new Scan(ids, matching, examined, false);
        }
        examined++;
        if (filter.matches(job, asOf)) {
          matching++;
          if (ids.size() < keep) {
            ids.add(job.id());
          }
        }
        if (examined >= MAX_EXAMINED) {
          return new Scan(ids, matching, examined, i < items.size() - 1 || page.nextCursor().isPresent());
        }
      }
      if (page.nextCursor().isEmpty()) {
        return new Scan(ids, matching, examined, false);
      }
      cursor = page.nextCursor().get();
    }
    return new Scan(ids, matching, examined, true);
  }
}
