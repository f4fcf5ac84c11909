package io.delayq.server.web;

import io.delayq.Delayq;
import io.delayq.JobQueue;
import io.delayq.Schedule;
import io.delayq.ScheduleInfo;
import io.delayq.ScheduleNotFoundException;
import io.delayq.ScheduledJob;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The Schedules pages ({@code /schedules}, {@code /queues/{queue}/schedules}) and the schedule
 * actions pause, resume and run now. Reads look queues up without creating them.
 */
final class SchedulePages {
  private final Delayq delayq;

  SchedulePages(Delayq delayq) {
    this.delayq = delayq;
  }

  /** {@code GET /schedules?cursor=}: every queue's schedules, a bounded page at a time. */
  WebResponse all(WebRequest request, PageContext page) {
    String cursor = request.queryOrNull("cursor");
    ScheduleListing.Result result = ScheduleListing.ofAllQueues(delayq, cursor);
    return render(page, null, result, cursor != null,
        result.hasNext() ? page.url("/schedules?cursor=" + PageContext.queryValue(result.nextCursor())) : "");
  }

  /** {@code GET /queues/{queue}/schedules?cursor=}: one queue's schedules by name. */
  WebResponse ofQueue(WebRequest request, PageContext page) {
    JobQueue queue = QueuePages.existing(delayq, request.pathParam("queue"));
    String cursor = request.queryOrNull("cursor");
    ScheduleListing.Result result = ScheduleListing.ofQueue(queue, cursor);
    String here = page.link("queues", queue.name(), "schedules");
    return render(page, queue.name(), result, cursor != null,
        result.hasNext() ? here + "?cursor=" + PageContext.queryValue(result.nextCursor()) : "");
  }

  private static WebResponse render(
      PageContext page, String queue, ScheduleListing.Result result, boolean paged, String next) {
    Map<String, Object> params = new HashMap<>();
    params.put("queue", queue == null ? "" : queue);
    params.put("result", result);
    params.put("paged", paged);
    params.put("next", next);
    return page.page("schedules.jte", params);
  }

  /** {@code POST /queues/{queue}/schedules/{name}/pause}. */
  WebResponse pause(WebRequest request, PageContext page) {
    Target target = target(request);
    ScheduleInfo info = target.call(() -> target.queue().schedules().pause(target.name()));
    return page.flash(200, true, "schedule '" + info.name() + "' of queue '" + target.queue().name()
        + "' paused: no occurrence is created until it is resumed");
  }

  /** {@code POST /queues/{queue}/schedules/{name}/resume}. */
  WebResponse resume(WebRequest request, PageContext page) {
    Target target = target(request);
    ScheduleInfo info = target.call(() -> target.queue().schedules().resume(target.name()));
    String next = info.nextRun() == null ? "it has no occurrence left" : "next run " + Display.utc(info.nextRun());
    return page.flash(200, true, "schedule '" + info.name() + "' of queue '" + target.queue().name()
        + "' resumed; " + next);
  }

  /** {@code POST /queues/{queue}/schedules/{name}/run}: one extra job due now. */
  WebResponse runNow(WebRequest request, PageContext page) {
    Target target = target(request);
    ScheduledJob job = target.call(() -> target.queue().schedules().runNow(target.name()));
    return page.flash(200, true, "schedule '" + target.name() + "' of queue '" + target.queue().name()
        + "' run now as job '" + job.id() + "'");
  }

  private Target target(WebRequest request) {
    String name = request.pathParam("name");
    try {
      Schedule.checkName(name);
    } catch (io.delayq.InvalidRequestException e) {
      throw WebException.badRequest(e.getMessage());
    }
    return new Target(QueuePages.existing(delayq, request.pathParam("queue")), name);
  }

  /** The schedule an action names: its queue (which exists) and its name (which is valid). */
  private record Target(JobQueue queue, String name) {
    <T> T call(Supplier<T> action) {
      try {
        return action.get();
      } catch (ScheduleNotFoundException e) {
        throw WebException.notFound("queue '" + queue.name() + "' has no schedule named '" + name
            + "' (it may have been removed); reload the page to see its schedules");
      }
    }
  }
}
