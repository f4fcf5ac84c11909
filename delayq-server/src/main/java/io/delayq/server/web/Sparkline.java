package io.delayq.server.web;

import io.delayq.HistoryBucket;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * A queue's last hour on the Queues page, drawn on the server as SVG polylines: jobs delivered per
 * minute, and lateness p99 on a scale of its own. Drawn here rather than by uPlot because the page
 * shows one per queue, loaded one by one as the rows appear; SVG needs no script, and its
 * attributes are not inline styles, so the CSP allows it.
 *
 * @param delivered the delivered line's points, {@code "x,y x,y ..."} in a {@link #WIDTH} by {@link
 *     #HEIGHT} box; empty with fewer than two buckets
 * @param p99 the p99 line's points, empty where nothing was delivered
 * @param totalDelivered jobs delivered over the hour
 * @param worstP99 the highest p99 of any minute, as {@code 20 ms}; {@code —} when nothing was delivered
 * @param json the same series as chart JSON ({@link HistoryCharts#sparkline()}), to embed
 */
public record Sparkline(String delivered, String p99, long totalDelivered, String worstP99, String json) {
  /** The drawing's width, in SVG units. */
  public static final int WIDTH = 120;
  /** The drawing's height, in SVG units. */
  public static final int HEIGHT = 28;

  /** The sparkline of these buckets (those of the last hour, by minute). */
  public static Sparkline of(List<HistoryBucket> buckets) {
    HistoryCharts charts = HistoryCharts.of(buckets);
    List<HistoryBucket> points = charts.buckets();
    double[] delivered = new double[points.size()];
    double[] p99 = new double[points.size()];
    Duration worst = null;
    for (int i = 0; i < points.size(); i++) {
      delivered[i] = points.get(i).delivered();
      Optional<Duration> late = points.get(i).lateness().percentile(0.99);
      p99[i] = late.map(d -> (double) d.toNanos()).orElse(-1.0);
      if (late.isPresent() && (worst == null || late.get().compareTo(worst) > 0)) {
        worst = late.get();
      }
    }
    return new Sparkline(line(delivered), line(p99), charts.total(HistoryBucket::delivered),
        worst == null ? "—" : Display.compact(worst), ChartJson.embeddable(charts.sparkline()));
  }

  /** Whether there is anything to draw. */
  public boolean drawn() {
    return !delivered.isEmpty();
  }

  /** {@code "x,y x,y"}, values below zero (none) left out; the top of the box is the largest value. */
  private static String line(double[] values) {
    if (values.length < 2) {
      return "";
    }
    double max = 0;
    for (double v : values) {
      max = Math.max(max, v);
    }
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < values.length; i++) {
      if (values[i] < 0) {
        continue;
      }
      double x = (double) WIDTH * i / (values.length - 1);
      // why: a flat line of zeros sits on the bottom edge, visible, rather than at mid-height
      double y = max == 0 ? HEIGHT - 1 : (HEIGHT - 1) - values[i] / max * (HEIGHT - 2);
      out.append(out.length() == 0 ? "" : " ").append(String.format(Locale.ROOT, "%.1f,%.1f", x, y));
    }
    return out.toString();
  }
}
