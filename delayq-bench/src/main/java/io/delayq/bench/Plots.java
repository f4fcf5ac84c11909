package io.delayq.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Draws the PNG plots under {@code docs/bench/}: the steady scenario's lateness distribution, one
 * percentile curve per contender, and one throughput bar chart per throughput scenario (the Redis
 * Cluster one: delayq's enqueue and drain on both topologies).
 */
final class Plots {
  /** Where the plots go, relative to the report. */
  static final Path DIR = Path.of("docs", "bench");
  private static final int WIDTH = 1000;
  private static final int HEIGHT = 560;
  /** Log axes cannot show 0: lateness below 1 µs (or early, recorded as 0) is drawn at 1 µs. */
  private static final double MIN_LATENESS_MS = 0.001;

  private final Path outDir;
  private final Results r;
  private final BenchSettings s;
  private final List<String> contenders;
  private final List<Path> written = new ArrayList<>();

  private Plots(Path outDir, Results results, BenchSettings settings, List<String> contenders) {
    this.outDir = outDir;
    this.r = results;
    this.s = settings;
    this.contenders = contenders;
  }

  /** Writes every plot the results allow; returns their paths relative to {@code outDir}. */
  static List<Path> write(Path outDir, Results results, BenchSettings settings, List<String> contenders)
      throws IOException {
    System.setProperty("java.awt.headless", "true");
    Files.createDirectories(outDir.resolve(DIR));
    Plots plots = new Plots(outDir, results, settings, contenders);
    plots.lateness();
    plots.enqueue();
    plots.drain();
    plots.backlog();
    plots.partitions();
    plots.cluster();
    return plots.written;
  }

  private void lateness() throws IOException {
    XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT)
        .title(String.format(Locale.ROOT, "Steady: lateness by percentile (%,d jobs/s for %d s, due %d ms after scheduling)",
            s.steadyRatePerSecond(), s.steadyDuration().toSeconds(), s.steadyDueIn().toMillis()))
        .xAxisTitle("percentile").yAxisTitle("lateness, ms (log)").build();
    // why: x is log10(1 / (1 - p)) on a linear axis, labelled as percentiles; XChart's own log axis
    // falls back to linear ticks once a label function is set
    chart.getStyler().setYAxisLogarithmic(true).setYAxisLogarithmicDecadeOnly(true)
        .setxAxisTickLabelsFormattingFunction(Plots::percentileLabel)
        .setXAxisMin(0.0)
        .setLegendPosition(Styler.LegendPosition.InsideNW);
    chart.getStyler().setMarkerSize(0);
    boolean any = false;
    for (String c : contenders) {
      Optional<Lateness> lateness = Results.find(r.steady, e -> e.contender().equals(c))
          .map(Results.SteadyResult::lateness).filter(l -> l.count() > 0);
      if (lateness.isEmpty()) {
        continue;
      }
      List<Double> x = new ArrayList<>();
      List<Double> y = new ArrayList<>();
      Histogram h = lateness.get().histogram();
      for (HistogramIterationValue v : h.percentiles(5)) {
        double p = v.getPercentileLevelIteratedTo();
        if (p >= 100) {
          break;
        }
        x.add(Math.log10(1 / (1 - p / 100)));
        y.add(Math.max(MIN_LATENESS_MS, v.getValueIteratedTo() / 1000.0));
      }
      if (x.size() < 2) {
        continue;
      }
      chart.addSeries(c, x, y).setMarker(SeriesMarkers.NONE);
      any = true;
    }
    if (any) {
      save(chart, "lateness.png");
    }
  }

  /** x = log10(1 / (1 - p)): whole x are 0%, 90%, 99%, 99.9%, ...; other ticks stay unlabelled. */
  private static String percentileLabel(double x) {
    long decades = Math.round(x);
    if (Math.abs(x - decades) > 1e-6 || decades < 0) {
      return " ";
    }
    if (decades == 0) {
      return "0%";
    }
    if (decades == 1) {
      return "90%";
    }
    return decades == 2 ? "99%" : "99." + "9".repeat((int) decades - 2) + "%";
  }

  private void enqueue() throws IOException {
    List<String> names = new ArrayList<>(contenders);
    List<Double> sync = new ArrayList<>();
    List<Double> bulk = new ArrayList<>();
    for (String c : contenders) {
      Optional<Results.EnqueueResult> e = Results.find(r.enqueue, x -> x.contender().equals(c));
      sync.add(e.map(Results.EnqueueResult::syncPerSecond).orElse(Double.NaN));
      bulk.add(e.map(Results.EnqueueResult::bulkPerSecond).orElse(Double.NaN));
    }
    if (r.ceiling != null && r.ceiling.available()) {
      names.add("ceiling (bare ZADD)");
      sync.add(r.ceiling.zaddPerSecond());
      bulk.add(r.ceiling.pipelinedZaddPerSecond());
    }
    CategoryChart chart = bars(String.format(Locale.ROOT, "Enqueue: %,d jobs from one producer thread", s.enqueueJobs()),
        "jobs/s");
    chart.addSeries("synchronous call (ceiling: 50 clients)", names, barsOf(sync));
    chart.addSeries("bulk call (ceiling: -P 64)", names, barsOf(bulk));
    save(chart, "throughput-enqueue.png");
  }

  private void drain() throws IOException {
    List<Double> rates = new ArrayList<>();
    for (String c : contenders) {
      rates.add(Results.find(r.drain, x -> x.contender().equals(c)).map(Results.DrainResult::perSecond)
          .orElse(Double.NaN));
    }
    CategoryChart chart = bars(String.format(Locale.ROOT, "Drain: %,d due jobs, %d consumer threads",
        s.drainJobs(), s.workerThreads()), "jobs/s");
    chart.addSeries("dispatch", contenders, barsOf(rates));
    save(chart, "throughput-drain.png");
  }

  private void backlog() throws IOException {
    List<String> sizes = s.backlogSizes().stream().map(n -> Fmt.size(n) + " pending").toList();
    CategoryChart chart = bars(String.format(Locale.ROOT, "Backlog growth: dispatch of %,d due jobs beside a backlog",
        s.backlogDueJobs()), "jobs/s");
    boolean any = false;
    for (String c : contenders) {
      List<Double> rates = new ArrayList<>();
      for (int size : s.backlogSizes()) {
        rates.add(Results.find(r.backlog, x -> x.contender().equals(c) && x.backlog() == size)
            .map(Results.DrainResult::perSecond).orElse(Double.NaN));
      }
      if (rates.stream().anyMatch(Double::isFinite)) {
        chart.addSeries(c, sizes, barsOf(rates));
        any = true;
      }
    }
    if (any) {
      save(chart, "throughput-backlog.png");
    }
  }

  private void partitions() throws IOException {
    List<String> counts = s.partitionCounts().stream().map(n -> n + (n == 1 ? " partition" : " partitions")).toList();
    List<Double> rates = new ArrayList<>();
    for (int n : s.partitionCounts()) {
      rates.add(Results.find(r.partitions, x -> x.partitions() == n).map(Results.DrainResult::perSecond)
          .orElse(Double.NaN));
    }
    CategoryChart chart = bars(String.format(Locale.ROOT, "Partitions: delayq drain of %,d due jobs on one Redis",
        s.partitionJobs()), "jobs/s");
    chart.addSeries(DelayqContender.NAME, counts, barsOf(rates));
    save(chart, "throughput-partitions.png");
  }

  private void cluster() throws IOException {
    List<String> counts = s.partitionCounts().stream().map(n -> n + (n == 1 ? " partition" : " partitions")).toList();
    CategoryChart chart = bars(String.format(Locale.ROOT,
        "Redis Cluster: delayq, %,d jobs per bar, single node and %d masters (%d replica each)", s.clusterJobs(),
        BenchCluster.MASTERS, BenchCluster.REPLICAS_PER_MASTER), "jobs/s");
    boolean any = false;
    for (Results.ClusterMeasure measure : Results.ClusterMeasure.values()) {
      for (String topology : ClusterScenario.TOPOLOGIES) {
        List<Double> rates = new ArrayList<>();
        for (int n : s.partitionCounts()) {
          Results.ClusterResult x = ClusterScenario.find(r, topology, measure, n);
          rates.add(x == null ? Double.NaN : x.perSecond());
        }
        if (rates.stream().anyMatch(Double::isFinite)) {
          chart.addSeries(measure.name().toLowerCase(Locale.ROOT) + ", " + topology, counts, barsOf(rates));
          any = true;
        }
      }
    }
    if (any) {
      save(chart, "throughput-cluster.png");
    }
  }

  private static CategoryChart bars(String title, String yTitle) {
    CategoryChart chart = new CategoryChartBuilder().width(WIDTH).height(HEIGHT).title(title).yAxisTitle(yTitle)
        .build();
    chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNE);
    chart.getStyler().setYAxisDecimalPattern("#,###").setYAxisMin(0.0);
    chart.getStyler().setLabelsVisible(true).setLabelsRotation(0);
    return chart;
  }

  /** A run that failed or was skipped has no bar (XChart skips nulls); the report says why. */
  private static List<Double> barsOf(List<Double> values) {
    List<Double> out = new ArrayList<>(values.size());
    for (double v : values) {
      out.add(Double.isFinite(v) ? v : null);
    }
    return out;
  }

  private void save(Chart<?, ?> chart, String fileName) throws IOException {
    Path relative = DIR.resolve(fileName);
    BitmapEncoder.saveBitmap(chart, outDir.resolve(relative).toString(), BitmapEncoder.BitmapFormat.PNG);
    written.add(relative);
  }
}
