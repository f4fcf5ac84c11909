package io.delayq.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayq.server.testing.ApiClient;
import io.delayq.server.testing.ServerProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code delayq schedule} as a careless user types it: bad intervals, misfire policies and
 * windows, payload files that are missing, directories or huge, and a schedule stored over HTTP
 * by a hostile client, listed on a terminal. Usage errors are exit code 2 and store nothing.
 */
class ScheduleCliAttackIT {
  private static ServerProcess server;
  private String queue;

  @BeforeAll
  static void startServer() throws IOException {
    server = ServerProcess.start();
  }

  @AfterAll
  static void stopServer() throws InterruptedException {
    if (server != null) {
      server.close();
    }
  }

  @BeforeEach
  void setUp() {
    queue = "atk-cli-" + UUID.randomUUID().toString().substring(0, 8);
  }

  private Cli.Result delayq(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--server", server.baseUrl()));
    return Cli.run(all);
  }

  private void assertUsageErrorAndNothingStored(Cli.Result result, String mentions) {
    assertThat(result.exitCode()).as(result.toString()).isEqualTo(ExitCodes.USAGE);
    assertThat(result.err()).as(result.toString()).contains(mentions).doesNotContain("unexpected error")
        .doesNotContain("Exception");
    assertThat(new ApiClient(server.baseUrl()).get("/v1/queues/" + queue).status())
        .as("queue created by a refused command").isEqualTo(404);
  }

  @Test
  void badIntervalsAreUsageErrors() {
    assertUsageErrorAndNothingStored(delayq("schedule", "set", queue, "s", "--every", "0s"), "--every");
    assertUsageErrorAndNothingStored(delayq("schedule", "set", queue, "s", "--every", "1.5h"), "--every");
    assertUsageErrorAndNothingStored(delayq("schedule", "set", queue, "s", "--every", "500ms"), "--every");
    assertUsageErrorAndNothingStored(delayq("schedule", "set", queue, "s", "--every", "1001d"), "--every");
    assertUsageErrorAndNothingStored(delayq("schedule", "set", queue, "s", "--every", "99999999999999999999d"), "--every");
    assertUsageErrorAndNothingStored(delayq("schedule", "set", queue, "s", "--every", "PT0.5S"), "--every");
  }

  /**
   * Finding (low): a negative {@code --every} (or {@code --grace}) is refused with the delay
   * converter's advice "use --at for a moment in the past", an option {@code schedule set} does not
   * have.
   */
  @Test
  void aNegativeIntervalIsRefusedWithAdviceThatFitsTheCommand() {
    Cli.Result negative = delayq("schedule", "set", queue, "s", "--every", "-5m");
    Cli.Result negativeIso = delayq("schedule", "set", queue, "s", "--every", "-PT5M");

    assertUsageErrorAndNothingStored(negative, "--every");
    assertUsageErrorAndNothingStored(negativeIso, "--every");
    assertThat(negative.err()).as("advice for an option schedule set does not have").doesNotContain("--at");
  }

  @Test
  void badMisfirePoliciesAreUsageErrors() {
    assertUsageErrorAndNothingStored(delayq("schedule", "set", queue, "s", "--every", "1h", "--misfire=run-up-to=0"),
        "--misfire");
    assertUsageErrorAndNothingStored(delayq("schedule", "set", queue, "s", "--every", "1h", "--misfire=abc"), "--misfire");
    assertUsageErrorAndNothingStored(delayq("schedule", "set", queue, "s", "--every", "1h", "--misfire=run-up-to=1001"),
        "--misfire");
    assertUsageErrorAndNothingStored(
        delayq("schedule", "set", queue, "s", "--every", "1h", "--misfire=run-up-to=99999999999"), "--misfire");
    assertUsageErrorAndNothingStored(delayq("schedule", "set", queue, "s", "--every", "1h", "--misfire=run-up-to=-1"),
        "--misfire");
  }

  @Test
  void aStartAfterTheEndAndBadZonesAreUsageErrorsNamingTheOptions() {
    Cli.Result window = delayq("schedule", "set", queue, "s", "--every", "1h",
        "--start", "2030-01-02T00:00:00Z", "--end", "2030-01-01T00:00:00Z");
    assertUsageErrorAndNothingStored(window, "--end");
    assertThat(window.err()).as("names the options as typed").doesNotContain("startAt");
    assertUsageErrorAndNothingStored(delayq("schedule", "set", queue, "s", "--cron", "@daily", "--zone", "+25:00"),
        "--zone");
    assertUsageErrorAndNothingStored(delayq("schedule", "set", queue, "s", "--cron", "@daily", "--zone", "EST"), "--zone");
    assertUsageErrorAndNothingStored(delayq("schedule", "set", queue, "s", "--every", "1h", "--grace", "-1s"), "--grace");
  }

  /** Finding: an --end in the past passes the command's checks and the refusal arrives after the queue is made. */
  @Test
  void anEndInThePastStoresNothing() {
    Cli.Result past = delayq("schedule", "set", queue, "s", "--every", "1h", "--end", "2020-01-01T00:00:00Z");

    assertThat(past.exitCode()).as(past.toString()).isEqualTo(ExitCodes.USAGE);
    assertThat(new ApiClient(server.baseUrl()).get("/v1/queues/" + queue).status())
        .as("a refused schedule set created the queue").isEqualTo(404);
  }

  @Test
  void payloadFilesThatAreMissingDirectoriesOrHugeAreUsageErrors(@TempDir Path dir) throws IOException {
    Path huge = dir.resolve("huge.bin");
    Files.write(huge, new byte[EnqueueCommand.MAX_PAYLOAD_BYTES + 10]);

    assertUsageErrorAndNothingStored(delayq("schedule", "set", queue, "s", "--every", "1h",
        "--payload-file", dir.resolve("missing.json").toString()), "--payload-file");
    assertUsageErrorAndNothingStored(delayq("schedule", "set", queue, "s", "--every", "1h",
        "--payload-file", dir.toString()), "--payload-file");
    assertUsageErrorAndNothingStored(delayq("schedule", "set", queue, "s", "--every", "1h",
        "--payload-file", huge.toString()), "limit");
  }

  @Test
  void aHostileCronStoredOverHttpNeverReachesTheTerminalRaw() {
    ApiClient api = new ApiClient(server.baseUrl());
    ApiClient.Reply stored = api.send("PUT", "/v1/queues/" + queue + "/schedules/evil", "application/json",
        "{\"cron\":\"0\\n9\\u001f*\\t*\\r*\",\"payload\":\"\\u001b]0;pwned\\u0007\\u001b[2J\"}"
            .getBytes(StandardCharsets.UTF_8));
    if (stored.status() != 201) {
      return; // refused at the door: nothing to print
    }

    Cli.Result listed = delayq("schedule", "ls", queue);
    Cli.Result json = delayq("schedule", "ls", queue, "--json");

    assertThat(listed.exitCode()).as(listed.toString()).isZero();
    assertThat(listed.outLines()).as("header and one row: " + listed).hasSize(2);
    assertNoRawControls(listed.out());
    assertThat(json.exitCode()).as(json.toString()).isZero();
    assertNoRawControls(json.out());
  }

  @Test
  void aRunNowOrRemoveOfAnUnknownScheduleIsExitCode3AndCreatesNothing() {
    Cli.Result run = delayq("schedule", "run-now", queue, "nope");
    Cli.Result rm = delayq("schedule", "rm", queue, "nope");
    Cli.Result badName = delayq("schedule", "rm", queue, "a/b");

    assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCodes.NOT_FOUND);
    assertThat(rm.exitCode()).as(rm.toString()).isEqualTo(ExitCodes.NOT_FOUND);
    assertThat(badName.exitCode()).as(badName.toString()).isIn(ExitCodes.USAGE, ExitCodes.NOT_FOUND);
    assertThat(new ApiClient(server.baseUrl()).get("/v1/queues/" + queue).status()).isEqualTo(404);
  }

  private static void assertNoRawControls(String out) {
    for (int i = 0; i < out.length(); i++) {
      char c = out.charAt(i);
      assertThat(c < 0x20 && c != '\n' || c == 0x7f)
          .as("raw control U+%04X at %d in:%n%s", (int) c, i, out).isFalse();
    }
  }
}
