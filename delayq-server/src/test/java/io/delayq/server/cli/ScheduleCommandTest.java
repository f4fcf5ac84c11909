package io.delayq.server.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delayq.Misfire;
import io.delayq.Schedule;
import io.delayq.ScheduleInfo;
import io.delayq.server.Main;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.TypeConversionException;

/** {@code delayq schedule}: what {@code set} refuses before it connects, the policies it reads, the table. */
class ScheduleCommandTest {
  /** Exit code and stderr of {@code delayq schedule set q s <args>}, run in this JVM; nothing is connected. */
  private record Run(int exitCode, String err) {}

  private static Run set(String... args) {
    CommandLine cli = new CommandLine(new Main()).setExpandAtFiles(false);
    StringWriter err = new StringWriter();
    cli.setOut(new PrintWriter(new StringWriter()));
    cli.setErr(new PrintWriter(err));
    String[] all = new String[args.length + 3];
    all[0] = "schedule";
    all[1] = "set";
    all[2] = "q";
    System.arraycopy(args, 0, all, 3, args.length);
    // why: a port nothing listens on, so that a refusal that was not made before connecting fails otherwise
    String[] withServer = java.util.stream.Stream.concat(java.util.Arrays.stream(all),
        java.util.stream.Stream.of("--server", "http://127.0.0.1:9")).toArray(String[]::new);
    return new Run(cli.execute(withServer), err.toString());
  }

  @Test
  void badDefinitionsAreUsageErrorsNamingTheOptionBeforeAnythingIsConnected() {
    record Bad(String[] args, String errHas) {}
    List<Bad> bads = List.of(
        new Bad(new String[] {"s", "--cron", "61 * * * *"}, "delayq schedule set: --cron "),
        new Bad(new String[] {"s", "--cron", "@daily", "--zone", "Mars/Olympus"}, "delayq schedule set: --zone "),
        new Bad(new String[] {"s", "--every", "500ms"}, "delayq schedule set: --every "),
        new Bad(new String[] {"s", "--every", "1h", "--start", "2030-01-02T00:00:00Z", "--end", "2030-01-01T00:00:00Z"},
            "delayq schedule set: --end "),
        new Bad(new String[] {"bad name", "--every", "1h"}, "delayq schedule set: NAME "),
        new Bad(new String[] {"s", "--every", "1h", "--grace", "400d"}, "delayq schedule set: --grace "));
    for (Bad bad : bads) {
      Run run = set(bad.args());
      assertThat(run.exitCode()).as("%s: %s", List.of(bad.args()), run.err()).isEqualTo(ExitCodes.USAGE);
      assertThat(run.err()).as("%s", List.of(bad.args())).startsWith(bad.errHas()).doesNotContain("cannot reach");
    }
    for (String[] wrong : new String[][] {
        {"s"}, {"s", "--every", "1h", "--cron", "@daily"}, {"s", "--every", "1h", "--misfire", "sometimes"},
        {"s", "--every", "1h", "--overlap", "never"}, {"s", "--every", "1h", "--payload", "a", "--payload-file", "f"}}) {
      assertThat(set(wrong).exitCode()).as("%s", List.of(wrong)).isEqualTo(ExitCodes.USAGE);
    }
  }

  @Test
  void misfirePoliciesAreReadAsTyped() {
    ScheduleCommand.MisfireConverter misfire = new ScheduleCommand.MisfireConverter();
    assertThat(misfire.convert("skip")).isEqualTo(Misfire.skip());
    assertThat(misfire.convert("run-once")).isEqualTo(Misfire.runOnce());
    assertThat(misfire.convert("run-up-to=3")).isEqualTo(Misfire.runUpTo(3));
    assertThatThrownBy(() -> misfire.convert("run-up-to=0")).isInstanceOf(TypeConversionException.class)
        .hasMessageContaining("from 1 to 1000");
    assertThatThrownBy(() -> misfire.convert("run-up-to")).isInstanceOf(TypeConversionException.class)
        .hasMessageContaining("run-up-to=N");
  }

  @Test
  void theTableShowsWhenNextAndLastRunCountsAndState() {
    Instant now = Instant.parse("2026-03-01T08:00:00Z");
    ScheduleInfo cron = new ScheduleInfo(
        Schedule.cron("digest", "0 9 * * *").inZone(ZoneId.of("Europe/Amsterdam")),
        Instant.parse("2026-03-02T08:00:00Z"), "digest@2026-03-02T08:00:00Z", Instant.parse("2026-03-01T08:00:00Z"),
        "digest@2026-03-01T08:00:00Z", 12, 1, 3);
    ScheduleInfo paused = new ScheduleInfo(
        Schedule.every("beat", Duration.ofMinutes(5)).withPaused(true), null, null, null, null, 0, 0, 1);

    String table = ScheduleCommand.ListSchedules.table(List.of(cron, paused), now);

    assertThat(table.lines().toList()).containsExactly(
        "NAME    WHEN                                  NEXT RUN                         LAST RUN              FIRED"
            + "  SKIPPED  STATE",
        "digest  cron '0 9 * * *' in Europe/Amsterdam  2026-03-02T08:00:00Z (in 1d 0h)  2026-03-01T08:00:00Z     12"
            + "        1  active",
        "beat    every 5m 0s                           -                                -                         0"
            + "        0  paused");
  }
}
