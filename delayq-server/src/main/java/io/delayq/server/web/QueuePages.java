package io.delayq.server.web;

import io.delayq.Delayq;
import io.delayq.DelayqException;
import io.delayq.HistoryBucket;
import java.time.Duration;
import io.delayq.JobQueue;
import io.delayq.Page;
import io.delayq.RedisCommandException;
import io.delayq.server.forward.ForwardSpec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The queues page ({@code /}) and the queue actions pause and resume. */
final class QueuePages {
  /** Queues per page of the list. */
  static final int PAGE_SIZE = 50;
  /** Minutes of history the sparklines show. */
  static final int SPARK_MINUTES = 60;

  private final Delayq delayq;

  QueuePages(Delayq delayq) {
    this.delayq = delayq;
  }

  /** {@code GET /?cursor=}: 50 queues by name with their counts. */
  WebResponse list(WebRequest request, PageContext page) {
    String cursor = request.queryOrNull("cursor");
    Page<String> names = delayq.queueNames(cursor, PAGE_SIZE);
    List<QueueRow> rows = new ArrayList<>();
    for (String name : names.items()) {
      try {
        // why: a queue deleted since its name was read is left out, not shown as empty
        delayq.existingQueue(name).ifPresent(queue -> rows.add(row(queue)));
      } catch (RedisCommandException broken) {
        // why: one queue whose keys another program overwrote must not hide every other queue
        rows.add(new QueueRow(name, null, null, broken.getMessage(), null, null));
      }
    }
    Map<String, Object> params = new HashMap<>();
    params.put("rows", rows);
    params.put("next", names.nextCursor().map(c -> page.url("/?cursor=" + PageContext.queryValue(c))).orElse(""));
    params.put("paged", cursor != null);
    return page.page("queues.jte", params);
  }

  private static QueueRow row(JobQueue queue) {
    Optional<String> stored = queue.admin().forwardingSpec();
    String throughput = null;
    String lateness = null;
    try {
      List<HistoryBucket> history = queue.admin().historyByMinute(SPARK_MINUTES);
      throughput = Charts.series(history, "delivered/min", HistoryBucket::delivered);
      lateness = Charts.series(history, "p99 lateness ms",
          b -> b.lateness().percentile(0.99).map(Duration::toMillis).orElse(0L));
    } catch (DelayqException unreadable) {
      // why: the counts matter more than the sparklines; a history that cannot be read leaves them empty
    }
    return new QueueRow(queue.name(), queue.admin().stats(), stored.map(QueuePages::describe).orElse(null), null,
        throughput, lateness);
  }

  /** A forwarding spec in words. */
  static String describe(String stored) {
    try {
      ForwardSpec spec = ForwardSpec.fromStored(stored);
      if (spec instanceof ForwardSpec.Rabbit rabbit) {
        return "RabbitMQ exchange '" + rabbit.exchange() + "'"
            + (rabbit.routingKey() == null || rabbit.routingKey().isEmpty() ? "" : ", key '" + rabbit.routingKey() + "'");
      }
      if (spec instanceof ForwardSpec.RedisList list) {
        return "Redis list '" + list.list() + "'";
      }
      return spec.toJson().toString();
    } catch (IllegalStateException unreadable) {
      return "unreadable: " + unreadable.getMessage();
    }
  }

  /** {@code POST /queues/{queue}/pause}. */
  WebResponse pause(WebRequest request, PageContext page) {
    JobQueue queue = existing(delayq, request.pathParam("queue"));
    queue.admin().pause();
    return page.flash(200, true, "queue '" + queue.name() + "' paused: workers claim nothing until it is resumed");
  }

  /** {@code POST /queues/{queue}/resume}. */
  WebResponse resume(WebRequest request, PageContext page) {
    JobQueue queue = existing(delayq, request.pathParam("queue"));
    queue.admin().resume();
    return page.flash(200, true, "queue '" + queue.name() + "' resumed");
  }

  /** The queue, or a 404 saying it does not exist (reads never create one). */
  static JobQueue existing(Delayq delayq, String name) {
    return delayq.existingQueue(name).orElseThrow(() -> WebException.notFound(
        "queue '" + name + "' does not exist (or was deleted); it is created by the first job scheduled on it"));
  }
}
