package io.delayq.server.web;

import io.delayq.Delayq;
import io.delayq.HistoryBucket;
import io.delayq.InvalidRequestException;
import io.delayq.JobQueue;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The History pages ({@code /history}, {@code /queues/{queue}/history}, {@code ?range=1h|24h|7d}):
 * throughput and lateness charts of all queues together or of one, and the queue selector.
 */
final class HistoryPages {
  /** Queue names the selector offers (as suggestions; any name can be typed). */
  static final int SELECTOR_NAMES = 1000;

  private final Delayq delayq;

  HistoryPages(Delayq delayq) {
    this.delayq = delayq;
  }

  /**
   * {@code GET /history?range=}: all queues together. With {@code ?queue=} (the selector's form),
   * a redirect to that queue's page.
   */
  WebResponse all(WebRequest request, PageContext page) {
    HistoryRange range = range(request);
    String chosen = request.queryOrNull("queue");
    if (chosen != null) {
      JobQueue queue = QueuePages.existing(delayq, chosen.trim());
      return WebResponse.seeOther(page.link("queues", queue.name(), "history") + "?range=" + range.param());
    }
    List<HistoryBucket> buckets =
        range.hourly() ? delayq.historyByHour(range.buckets()) : delayq.historyByMinute(range.buckets());
    return render(page, "", range, buckets);
  }

  /** {@code GET /queues/{queue}/history?range=}: one queue. */
  WebResponse ofQueue(WebRequest request, PageContext page) {
    HistoryRange range = range(request);
    JobQueue queue = QueuePages.existing(delayq, request.pathParam("queue"));
    List<HistoryBucket> buckets = range.hourly()
        ? queue.admin().historyByHour(range.buckets()) : queue.admin().historyByMinute(range.buckets());
    return render(page, queue.name(), range, buckets);
  }

  private WebResponse render(PageContext page, String queue, HistoryRange range, List<HistoryBucket> buckets) {
    HistoryCharts charts = HistoryCharts.of(buckets);
    Map<String, Object> params = new HashMap<>();
    params.put("queue", queue);
    params.put("range", range);
    params.put("ranges", List.of(HistoryRange.values()));
    params.put("charts", charts);
    params.put("throughput", ChartJson.embeddable(charts.throughput()));
    params.put("lateness", ChartJson.embeddable(charts.lateness50And99()));
    params.put("queueNames", delayq.queueNames(null, SELECTOR_NAMES).items());
    return page.page("history.jte", params);
  }

  private static HistoryRange range(WebRequest request) {
    try {
      return HistoryRange.parse(request.queryOrNull("range"));
    } catch (InvalidRequestException e) {
      throw WebException.badRequest(e.getMessage());
    }
  }
}
