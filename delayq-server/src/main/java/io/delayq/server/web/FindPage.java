package io.delayq.server.web;

import io.delayq.Delayq;
import io.delayq.JobQueue;
import io.delayq.Page;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code GET /find?queue=&id=}: with a queue, one lookup by id (O(log N)); without, the same lookup
 * in every queue, by name, stopping at the first match and after {@link #MAX_QUEUES} queues.
 */
final class FindPage {
  static final int MAX_QUEUES = 2_000;
  private static final int NAMES_PAGE = 1_000;
  private final Delayq delayq;

  FindPage(Delayq delayq) {
    this.delayq = delayq;
  }

  WebResponse find(WebRequest request, PageContext page) {
    String queueName = request.queryOrNull("queue") == null ? null : request.query("queue").trim();
    String id = request.query("id") == null ? null : request.query("id");
    if (id == null || id.isEmpty()) {
      throw WebException.badRequest("give the id of the job to find (and its queue, to look in that one only)");
    }
    Inputs.jobId(id);
    List<String> searched = new ArrayList<>();
    boolean stoppedEarly = false;
    if (queueName != null) {
      JobQueue queue = QueuePages.existing(delayq, queueName);
      searched.add(queue.name());
      if (queue.get(id).isPresent()) {
        return WebResponse.seeOther(page.link("queues", queue.name(), "jobs", id));
      }
    } else {
      String cursor = null;
      int looked = 0;
      outer:
      do {
        Page<String> names = delayq.queueNames(cursor, NAMES_PAGE);
        for (String name : names.items()) {
          if (looked >= MAX_QUEUES) {
            stoppedEarly = true;
            break outer;
          }
          looked++;
          Optional<JobQueue> queue = delayq.existingQueue(name);
          if (queue.isEmpty()) {
            continue;
          }
          searched.add(name);
          if (queue.get().get(id).isPresent()) {
            return WebResponse.seeOther(page.link("queues", name, "jobs", id));
          }
        }
        cursor = names.nextCursor().orElse(null);
      } while (cursor != null);
    }
    Map<String, Object> params = new HashMap<>();
    params.put("id", id);
    params.put("queue", queueName == null ? "" : queueName);
    params.put("searched", searched.size() > 20 ? searched.subList(0, 20) : searched);
    params.put("searchedCount", searched.size());
    params.put("stoppedEarly", stoppedEarly);
    params.put("maxQueues", MAX_QUEUES);
    return WebResponse.html(404, page.render("find.jte", params));
  }
}
