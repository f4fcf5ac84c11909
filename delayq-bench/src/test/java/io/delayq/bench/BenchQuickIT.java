package io.delayq.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the benchmark's quick mode in this JVM, into a temp dir, and checks what it wrote: a report
 * with a row per contender in every scenario table, a Redis Cluster table with figures for the single
 * node and the cluster, a durable schedules table with figures for plain and durable enqueue, an HTTP
 * API table with figures for both ways of settling (the deeper checks of that scenario are {@link
 * HttpScenarioIT}'s), valid PNG plots, the idempotency window's bytes per finished id at a plausible
 * size, and no job of delayq lost or delivered twice.
 */
class BenchQuickIT {
  private static final byte[] PNG_SIGNATURE = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  private static final List<String> PLOTS = List.of("lateness.png", "throughput-enqueue.png",
      "throughput-drain.png", "throughput-backlog.png", "throughput-partitions.png", "throughput-cluster.png");

  @TempDir Path out;

  @Test
  // why: a bound on a hung run, not a speed check; a busy 2-core CI box needs well over 2 minutes (the HTTP
  // scenario, last, adds about half a minute there)
  @Timeout(value = 480, unit = TimeUnit.SECONDS)
  void quickModeWritesACompleteReportAndPlots() throws IOException {
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    BenchMain.Outcome outcome;
    try (PrintStream printed = new PrintStream(log, true, StandardCharsets.UTF_8)) {
      outcome = BenchMain.run(new String[] {"--quick", "--out=" + out}, printed);
    } finally {
      System.out.print(log.toString(StandardCharsets.UTF_8));
    }

    Path report = out.resolve("BENCHMARKS.md");
    assertThat(outcome.report()).isEqualTo(report);
    assertThat(report).isRegularFile();
    String text = Files.readString(report, StandardCharsets.UTF_8);
    assertThat(text).contains(RunInfo.COMMAND).contains("## Targets").contains(Report.WHERE_THE_TIME_GOES);

    List<String> rowNames = new ArrayList<>();
    Benchmark.CONTENDERS.forEach(f -> rowNames.add(f.name()));
    rowNames.add(Ceiling.NAME);
    for (String heading : Report.SCENARIO_SECTIONS) {
      List<String> table = tableOf(text, heading);
      for (String name : rowNames) {
        assertThat(table).as("row for %s under %s", name, heading)
            .anySatisfy(line -> assertThat(line).startsWith("| " + name + " |"));
      }
      List<String> header = cells(table.get(0));
      int lost = header.indexOf("lost");
      int duplicates = header.indexOf("duplicates");
      assertThat(lost).as("lost column under %s", heading).isPositive();
      assertThat(duplicates).as("duplicates column under %s", heading).isPositive();
      List<String> delayq = cells(table.stream()
          .filter(line -> line.startsWith("| " + DelayqContender.NAME + " |")).findFirst().orElseThrow());
      assertThat(delayq.get(lost)).as("delayq lost under %s", heading).isEqualTo("0");
      assertThat(delayq.get(duplicates)).as("delayq duplicates under %s", heading).isEqualTo("0");
    }

    List<Integer> partitionCounts = BenchSettings.quickMode().partitionCounts();
    List<String> cluster = tableOf(text, Report.clusterHeading(partitionCounts));
    List<String> clusterHeader = cells(cluster.get(0));
    int clusterLost = clusterHeader.indexOf("lost");
    // why: the topology, then enqueue and drain at each partition count
    assertThat(clusterLost).as("lost column of the cluster table").isEqualTo(1 + 2 * partitionCounts.size());
    for (String topology : ClusterScenario.TOPOLOGIES) {
      List<String> row = cells(cluster.stream().filter(line -> line.startsWith("| " + topology + " "))
          .findFirst().orElseThrow(() -> new AssertionError("no cluster row for " + topology)));
      String note = row.get(row.size() - 1);
      for (int i = 1; i < clusterLost; i++) {
        String what = clusterHeader.get(i) + " on " + topology + " (note: " + note + ")";
        assertThat(row.get(i)).as(what).isNotEqualTo(Fmt.NONE);
        assertThat(Double.parseDouble(row.get(i).replace(",", ""))).as(what).isPositive();
      }
      assertThat(row.get(clusterLost)).as("lost on %s", topology).isEqualTo("0");
      assertThat(row.get(clusterLost + 1)).as("duplicates on %s", topology).isEqualTo("0");
    }

    List<String> durable = tableOf(text, Report.DURABLE);
    List<String> durableHeader = cells(durable.get(0));
    int durableLost = durableHeader.indexOf("lost");
    // why: the mode, then one at a time and scheduleAll
    assertThat(durableLost).as("lost column of the durable table").isEqualTo(3);
    for (String mode : DurableScenario.MODES) {
      List<String> row = cells(durable.stream().filter(line -> line.startsWith("| " + mode + " "))
          .findFirst().orElseThrow(() -> new AssertionError("no durable row for " + mode)));
      String note = row.get(row.size() - 1);
      for (int i = 1; i < durableLost; i++) {
        String what = durableHeader.get(i) + ", " + mode + " (note: " + note + ")";
        assertThat(row.get(i)).as(what).isNotEqualTo(Fmt.NONE);
        assertThat(Double.parseDouble(row.get(i).replace(",", ""))).as(what).isPositive();
      }
      assertThat(row.get(durableLost)).as("lost, %s", mode).isEqualTo("0");
      assertThat(row.get(durableLost + 1)).as("duplicates, %s", mode).isEqualTo("0");
    }
    assertThat(text).contains("Waiting for the replica, delayq scheduled one job at a time at ");

    List<String> http = tableOf(text, Report.HTTP);
    List<String> httpHeader = cells(http.stream().filter(line -> line.startsWith("| settling | drain jobs |"))
        .findFirst().orElseThrow(() -> new AssertionError("no results table under " + Report.HTTP)));
    int httpLost = httpHeader.indexOf("lost");
    assertThat(httpLost).as("lost column of the HTTP table").isPositive();
    BenchSettings quick = BenchSettings.quickMode();
    for (HttpWorkers.Settling settling : HttpWorkers.Settling.values()) {
      List<String> row = cells(http.stream().filter(line -> line.startsWith("| " + settling.label() + " |"))
          .findFirst().orElseThrow(() -> new AssertionError("no HTTP row for " + settling.label())));
      String note = row.get(row.size() - 1);
      for (String figure : List.of("schedule jobs/s (`jobs:batch`)", "drain jobs/s", "p50 ms", "p99 ms")) {
        String cell = row.get(httpHeader.indexOf(figure));
        String what = figure + ", " + settling.label() + " (note: " + note + ")";
        assertThat(cell).as(what).isNotEqualTo(Fmt.NONE);
        assertThat(Double.parseDouble(cell.replace(",", ""))).as(what).isNotNegative();
      }
      assertThat(row.get(httpHeader.indexOf("server connections"))).as("server connections, %s", settling.label())
          .isEqualTo(Fmt.count(quick.httpWorkers() + quick.httpIdleConnections() + 1));
      assertThat(row.get(httpHeader.indexOf("idle open at end"))).as("idle open at end, %s", settling.label())
          .isEqualTo(Fmt.count(quick.httpIdleConnections()));
      assertThat(row.get(httpHeader.indexOf("settle errors"))).as("settle errors, %s", settling.label())
          .isEqualTo("0");
      assertThat(row.get(httpLost)).as("lost, %s", settling.label()).isEqualTo("0");
      assertThat(row.get(httpLost + 1)).as("duplicates, %s", settling.label()).isEqualTo("0");
    }

    List<String> idempotency = tableOf(text, Report.IDEMPOTENCY);
    List<String> idempotencyHeader = cells(idempotency.get(0));
    int idempotencyLost = idempotencyHeader.indexOf("lost");
    assertThat(idempotencyLost).as("lost column of the idempotency table").isPositive();
    for (String run : List.of("window on", "window off")) {
      List<String> row = cells(idempotency.stream().filter(line -> line.startsWith("| " + run + " "))
          .findFirst().orElseThrow(() -> new AssertionError("no idempotency row for " + run)));
      assertThat(row.get(idempotencyLost)).as("lost, %s", run).isEqualTo("0");
      assertThat(row.get(idempotencyLost + 1)).as("duplicates, %s", run).isEqualTo("0");
    }
    Matcher perId = Pattern.compile("\\*\\*" + Pattern.quote(Report.BYTES_PER_FINISHED_ID) + ": ([0-9.,]+)\\*\\*")
        .matcher(text);
    assertThat(perId.find()).as("the figure '%s' in the report", Report.BYTES_PER_FINISHED_ID).isTrue();
    // why: a set member costs Redis tens of bytes (entry, string, bucket); far off that, the measurement is broken
    assertThat(Double.parseDouble(perId.group(1).replace(",", ""))).as(Report.BYTES_PER_FINISHED_ID)
        .isBetween(10.0, 200.0);
    Results.IdempotencyResult measured = outcome.results().idempotency;
    assertThat(measured).isNotNull();
    assertThat(measured.idsHeld()).as("ids the window held").isEqualTo(measured.jobs());
    assertThat(measured.doneSetBytesPerId()).as("MEMORY USAGE of the id sets per id").isBetween(10.0, 200.0);

    for (String plot : PLOTS) {
      Path png = out.resolve("docs/bench").resolve(plot);
      assertThat(png).as(plot).isRegularFile();
      assertThat(outcome.plots()).contains(png);
      try (InputStream in = Files.newInputStream(png)) {
        assertThat(in.readNBytes(PNG_SIGNATURE.length)).as(plot + " signature").isEqualTo(PNG_SIGNATURE);
      }
      BufferedImage image = ImageIO.read(png.toFile());
      assertThat(image).as(plot + " decodes").isNotNull();
      assertThat(image.getWidth()).isPositive();
      assertThat(image.getHeight()).isPositive();
      assertThat(text).contains("(docs/bench/" + plot + ")");
    }
  }

  /** The Markdown table lines (header first) of the section under {@code heading}. */
  private static List<String> tableOf(String text, String heading) {
    int start = text.indexOf("\n" + heading + "\n");
    assertThat(start).as("section %s", heading).isNotNegative();
    int end = text.indexOf("\n## ", start + heading.length() + 1);
    String section = text.substring(start, end < 0 ? text.length() : end);
    List<String> table = section.lines().filter(line -> line.startsWith("|") && !line.startsWith("|---")).toList();
    assertThat(table).as("table under %s", heading).isNotEmpty();
    return table;
  }

  /** The cells of a Markdown table row, trimmed, the contender name first. */
  private static List<String> cells(String row) {
    String inner = row.substring(1, row.length() - (row.endsWith("|") ? 1 : 0));
    return Arrays.stream(inner.split(" \\| ", -1)).map(String::trim).toList();
  }
}
