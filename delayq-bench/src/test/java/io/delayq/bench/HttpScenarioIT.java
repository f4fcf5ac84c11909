package io.delayq.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the HTTP scenario alone in quick mode ({@code --quick --only=http}), against the real
 * delayq-server.jar this build packaged, and checks its figures: every job scheduled was received
 * exactly once, lateness was recorded for every steady job, the server held exactly the worker, idle
 * and producer connections, and the report has just that section, with the command to rerun it.
 */
class HttpScenarioIT {
  @TempDir Path out;

  @Test
  // why: a bound on a hung run, not a speed check; the scenario takes about 20 s on a busy 2-core box
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void quickHttpScenarioDeliversEveryJobOnceAndRecordsLateness() throws IOException {
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    BenchMain.Outcome outcome;
    try (PrintStream printed = new PrintStream(log, true, StandardCharsets.UTF_8)) {
      outcome = BenchMain.run(new String[] {"--quick", "--only=http", "--out=" + out}, printed);
    } finally {
      System.out.print(log.toString(StandardCharsets.UTF_8));
    }

    BenchSettings s = BenchSettings.quickMode();
    List<Results.HttpResult> rows = outcome.results().http;
    assertThat(rows).extracting(Results.HttpResult::settling)
        .containsExactly(HttpWorkers.Settling.SETTLE.label(), HttpWorkers.Settling.ACK.label());
    for (Results.HttpResult row : rows) {
      String which = row.settling() + " (note: " + row.note() + ")";
      assertThat(row.note()).as("note, %s", which).isEmpty();
      assertThat(row.integrity()).as("integrity, %s", which)
          .isEqualTo(new Integrity(s.httpDrainJobs() + s.httpSteadyJobs(), 0, 0, 0));
      assertThat(row.settleErrors()).as("settle errors, %s", which).isZero();
      assertThat(row.schedulePerSecond()).as("schedule jobs/s, %s", which).isPositive().isFinite();
      assertThat(row.drainPerSecond()).as("drain jobs/s, %s", which).isPositive().isFinite();
      assertThat(row.offeredPerSecond()).as("offered jobs/s, %s", which).isPositive().isFinite();

      Lateness lateness = row.lateness();
      assertThat(lateness).as("lateness, %s", which).isNotNull();
      assertThat(lateness.count()).as("lateness values, %s", which).isEqualTo(s.httpSteadyJobs());
      assertThat(lateness.early()).as("early, %s", which).isZero();
      // why: received within the run, not after a lease ran out (30 s) or a wait was missed
      assertThat(lateness.maxMicros()).as("max lateness µs, %s", which).isLessThan(10_000_000);
      assertThat(lateness.p99Micros()).as("p99 µs, %s", which).isGreaterThanOrEqualTo(lateness.p50Micros());

      assertThat(row.serverConnections()).as("connections the server held mid-run, %s", which)
          .isEqualTo(s.httpWorkers() + s.httpIdleConnections() + 1);
      assertThat(row.idleOpenAtEnd()).as("idle connections still open, %s", which)
          .isEqualTo(s.httpIdleConnections());
    }

    Path report = out.resolve(Report.FILE_NAME);
    assertThat(outcome.report()).isEqualTo(report);
    String text = Files.readString(report, StandardCharsets.UTF_8);
    assertThat(text).contains(Report.HTTP).contains(HttpScenario.COMMAND)
        .contains("| scenarios | only http (`--only=http`)")
        .doesNotContain("## Targets").doesNotContain(Report.DRAIN + "\n").doesNotContain(Report.DURABLE)
        .doesNotContain(Report.WHERE_THE_TIME_GOES);
    assertThat(outcome.plots()).isEmpty();
    for (HttpWorkers.Settling settling : HttpWorkers.Settling.values()) {
      assertThat(text).contains("| " + settling.label() + " | " + Fmt.count(s.httpDrainJobs()) + " | ");
    }
  }
}
