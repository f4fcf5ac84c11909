package io.delayq.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the RabbitMQ scenario alone in quick mode ({@code --quick --only=rabbitmq}) against the
 * broker at {@code DELAYQ_TEST_RABBITMQ} (else the machine's) and checks that both publishers
 * delivered every message exactly once, with a rate each, and that the report states both and
 * their ratio.
 */
class RabbitScenarioIT {
  @TempDir Path out;

  @Test
  // why: a bound on a hung run, not a speed check
  @Timeout(value = 240, unit = TimeUnit.SECONDS)
  void quickRabbitScenarioDeliversEveryMessageOnceForBothPublishersAndReportsTheRatio() throws Exception {
    String url = System.getenv().getOrDefault("DELAYQ_TEST_RABBITMQ", RabbitScenario.DEFAULT_URL);
    assumeReachable(url);
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    BenchMain.Outcome outcome;
    try (PrintStream printed = new PrintStream(log, true, StandardCharsets.UTF_8)) {
      outcome = BenchMain.run(new String[] {"--quick", "--only=rabbitmq", "--rabbitmq=" + url, "--out=" + out}, printed);
    } finally {
      System.out.print(log.toString(StandardCharsets.UTF_8));
    }

    int n = RabbitScenario.messages(BenchSettings.quickMode());
    List<Results.RabbitResult> rows = outcome.results().rabbitmq;
    assertThat(rows).extracting(Results.RabbitResult::publisher)
        .containsExactly(RabbitScenario.BARE, RabbitScenario.FORWARDER);
    for (Results.RabbitResult row : rows) {
      assertThat(row.note()).as("note of %s", row.publisher()).isEmpty();
      assertThat(row.integrity()).as("integrity of %s", row.publisher()).isEqualTo(new Integrity(n, 0, 0, 0));
      assertThat(row.perSecond()).as("messages/s of %s", row.publisher()).isPositive().isFinite();
      assertThat(row.window()).isEqualTo(RabbitScenario.WINDOW);
    }

    String text = Files.readString(out.resolve(Report.FILE_NAME), StandardCharsets.UTF_8);
    assertThat(text).contains(Report.RABBITMQ).contains(RabbitScenario.COMMAND)
        .contains("| " + RabbitScenario.BARE + " | ").contains("| " + RabbitScenario.FORWARDER + " | ")
        .contains("**Finding.** Forwarder/bare: ")
        .doesNotContain("guest:guest@");
  }

  private static void assumeReachable(String url) {
    try {
      ConnectionFactory f = new ConnectionFactory();
      f.setUri(url);
      try (Connection c = f.newConnection("delayq-bench-test-probe")) {
        c.isOpen();
      }
    } catch (Exception e) {
      String why = "RabbitMQ at " + RabbitScenario.redacted(url) + " is not reachable (" + e + ")";
      if ("true".equals(System.getenv("CI"))) {
        throw new AssertionError(why, e);
      }
      Assumptions.abort(why);
    }
  }
}
