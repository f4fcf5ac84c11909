package io.delayq.server.web;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.delayq.HistoryBucket;
import io.delayq.Lateness;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.ToLongFunction;

/**
 * History buckets as chart series for uPlot: {@code {"kind", "title", "unit", "labels": [...],
 * "data": [[x seconds...], [series 1...], ...]}}, the column layout uPlot draws, x in epoch seconds.
 * A minute (or hour) with nothing stored is a zero (a lateness gap, as nothing was delivered), so
 * a quiet stretch draws as quiet rather than as a straight line across it.
 */
public final class HistoryCharts {
  /** The throughput series, in chart order. */
  public static final List<String> THROUGHPUT_LABELS = List.of("scheduled", "delivered", "acked", "retried", "dead");
  /** The lateness series, in chart order. */
  public static final List<String> LATENESS_LABELS = List.of("p50", "p99");
  private static final List<ToLongFunction<HistoryBucket>> COUNTS = List.of(
      HistoryBucket::scheduled, HistoryBucket::delivered, HistoryBucket::acked, HistoryBucket::retried,
      HistoryBucket::dead);

  private final List<HistoryBucket> buckets;
  private final boolean hourly;

  private HistoryCharts(List<HistoryBucket> buckets, boolean hourly) {
    this.buckets = buckets;
    this.hourly = hourly;
  }

  /**
   * The charts of these buckets (in any order, all of one width); missing buckets between the
   * first and the last are filled with empty ones.
   */
  public static HistoryCharts of(List<HistoryBucket> buckets) {
    List<HistoryBucket> sorted = new ArrayList<>(buckets);
    sorted.sort(Comparator.comparing(HistoryBucket::start));
    boolean hourly = !sorted.isEmpty() && sorted.get(0).width().compareTo(Duration.ofHours(1)) >= 0;
    return new HistoryCharts(filled(sorted), hourly);
  }

  private static List<HistoryBucket> filled(List<HistoryBucket> sorted) {
    List<HistoryBucket> out = new ArrayList<>(sorted.size());
    for (HistoryBucket bucket : sorted) {
      if (!out.isEmpty()) {
        HistoryBucket last = out.get(out.size() - 1);
        Instant expected = last.end();
        // why: bound the filling, so a bucket of a skewed or odd start cannot make an unbounded series
        for (int i = 0; i < 10_000 && expected.isBefore(bucket.start()); i++) {
          out.add(new HistoryBucket(expected, last.width(), 0, 0, 0, 0, 0, Lateness.NONE));
          expected = expected.plus(last.width());
        }
      }
      out.add(bucket);
    }
    return out;
  }

  /** The buckets drawn, in time order, gaps filled. */
  public List<HistoryBucket> buckets() {
    return List.copyOf(buckets);
  }

  /** The sum of one count over every bucket, e.g. {@code total(HistoryBucket::delivered)}. */
  public long total(ToLongFunction<HistoryBucket> count) {
    long sum = 0;
    for (HistoryBucket bucket : buckets) {
      sum += count.applyAsLong(bucket);
    }
    return sum;
  }

  /** Whether any bucket counts anything: without, the page says so instead of drawing flat lines. */
  public boolean hasCounts() {
    for (ToLongFunction<HistoryBucket> count : COUNTS) {
      if (total(count) > 0) {
        return true;
      }
    }
    return false;
  }

  /** Lateness over every bucket together. */
  public Lateness lateness() {
    Lateness all = Lateness.NONE;
    for (HistoryBucket bucket : buckets) {
      all = all.plus(bucket.lateness());
    }
    return all;
  }

  /**
   * The lateness that {@code quantile} of all deliveries were within, as {@code 5 ms}; {@code —}
   * when nothing was delivered.
   */
  public String latenessWithin(double quantile) {
    return lateness().percentile(quantile).map(Display::compact).orElse("—");
  }

  /** Jobs scheduled, delivered, acked, retried and dead per bucket. */
  public ObjectNode throughput() {
    ObjectNode chart = chart("throughput", "Throughput", hourly ? "jobs per hour" : "jobs per minute", THROUGHPUT_LABELS);
    ArrayNode data = data(chart);
    for (ToLongFunction<HistoryBucket> count : COUNTS) {
      ArrayNode column = data.addArray();
      buckets.forEach(bucket -> column.add(count.applyAsLong(bucket)));
    }
    return chart;
  }

  /** Lateness p50 and p99 per bucket in milliseconds; null where nothing was delivered. */
  public ObjectNode lateness50And99() {
    ObjectNode chart = chart("lateness", "Lateness", "ms", LATENESS_LABELS);
    ArrayNode data = data(chart);
    for (double quantile : new double[] {0.50, 0.99}) {
      ArrayNode column = data.addArray();
      buckets.forEach(bucket -> addMillis(column, bucket.lateness().percentile(quantile)));
    }
    return chart;
  }

  /**
   * A queue's sparkline for the Queues page: delivered per bucket and lateness p99 (ms, null where
   * nothing was delivered), {@code {"kind": "sparkline", "labels": ["delivered", "p99"], "data"}}.
   */
  public ObjectNode sparkline() {
    ObjectNode chart = chart("sparkline", "Last hour", hourly ? "per hour" : "per minute", List.of("delivered", "p99"));
    ArrayNode data = data(chart);
    ArrayNode delivered = data.addArray();
    buckets.forEach(bucket -> delivered.add(bucket.delivered()));
    ArrayNode p99 = data.addArray();
    buckets.forEach(bucket -> addMillis(p99, bucket.lateness().percentile(0.99)));
    return chart;
  }

  private static void addMillis(ArrayNode column, Optional<Duration> value) {
    if (value.isPresent()) {
      column.add(value.get().toNanos() / 1_000_000.0);
    } else {
      column.addNull();
    }
  }

  private static ObjectNode chart(String kind, String title, String unit, List<String> labels) {
    ObjectNode chart = ChartJson.object().put("kind", kind).put("title", title).put("unit", unit);
    ArrayNode names = chart.putArray("labels");
    labels.forEach(names::add);
    return chart;
  }

  private ArrayNode data(ObjectNode chart) {
    ArrayNode data = chart.putArray("data");
    ArrayNode x = data.addArray();
    buckets.forEach(bucket -> x.add(bucket.start().getEpochSecond()));
    return data;
  }
}
