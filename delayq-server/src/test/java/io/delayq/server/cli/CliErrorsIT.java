package io.delayq.server.cli;

import static io.delayq.server.cli.CliContract.assertExit;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.delayq.server.testing.ServerProcess;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Exit codes 1, 2 and 5, their one-line messages, and {@code --help} of every command. */
class CliErrorsIT {
  @TempDir Path tmp;

  @Test
  void anUnreachableServerIsExitCode1WithWhatToDo() {
    String url = "http://127.0.0.1:" + Cli.freePort();
    Cli.Result result = Cli.run("stats", "--server", url);
    assertExit(result, 1);
    assertThat(result.err().strip()).isEqualTo("delayq stats: cannot reach delayq server at " + url
        + ": connection refused. Start it with `java -jar delayq-server.jar serve`,"
        + " or pass --redis to talk to Redis directly");
  }

  @Test
  void anUnreachableRedisIsExitCode1() {
    String url = "redis://127.0.0.1:" + Cli.freePort();
    Cli.Result result = Cli.run("get", "orders", "order-42", "--redis", url);
    assertExit(result, 1);
    assertThat(result.err()).startsWith("delayq get: cannot reach Redis at " + url).contains("--redis");
  }

  @Test
  void theServerComesFromDelayqServerWhenNoOptionNamesIt() {
    String url = "http://127.0.0.1:" + Cli.freePort();
    Cli.Result result = Cli.run(List.of("pause", "orders"), null, Map.of("DELAYQ_SERVER", url));
    assertExit(result, 1);
    assertThat(result.err()).contains("cannot reach delayq server at " + url);
  }

  @Test
  void aServerThatCannotConfirmAWriteIsExitCode6WithWhatIsSafeToRepeat() throws Exception {
    // A stand-in for a server whose Redis timed out mid-call: it answers as API.md says the real one does.
    HttpServer fake = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    fake.createContext("/", exchange -> {
      exchange.getRequestBody().readAllBytes();
      byte[] body = ("{\"error\":\"outcome_unknown\",\"detail\":\"Redis at redis://127.0.0.1:6379 did not answer"
          + " within PT10S, so the call may or may not have taken effect. The call may have taken effect, or not.\"}")
          .getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "application/json; charset=utf-8");
      exchange.sendResponseHeaders(504, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    });
    fake.start();
    try {
      String url = "http://127.0.0.1:" + fake.getAddress().getPort();
      Cli.Result result = Cli.run("enqueue", "orders", "x", "--id", "order-42", "--server", url);
      assertExit(result, 6);
      assertThat(result.err())
          .startsWith("delayq enqueue: outcome unknown: the delayq server at " + url + " could not confirm POST")
          .contains("did not answer within PT10S")
          .contains("an enqueue made with --keep may be repeated safely as it was");
    } finally {
      fake.stop(0);
    }
  }

  @Test
  void theHelpListsEveryExitCode() {
    Cli.Result help = Cli.run("--help");
    assertExit(help, 0);
    assertThat(help.out().replaceAll("\\s+", " "))
        .contains("Exit codes: 0 done, 1 failed (server or Redis unreachable), 2 usage error, 3 not found, 4 conflict,"
            + " 5 unauthorized, 6 outcome unknown");
  }

  @Test
  void usageErrorsAreExitCode2WithOneLineThatPointsAtHelp() throws Exception {
    Cli.Result bogus = Cli.run("enqueue", "orders", "x", "--bogus");
    assertExit(bogus, 2);
    assertThat(bogus.err()).contains("Unknown option: '--bogus'").contains("See 'delayq enqueue --help'");

    Cli.Result delay = Cli.run("enqueue", "orders", "x", "--delay", "5 parsecs");
    assertExit(delay, 2);
    assertThat(delay.err()).startsWith("delayq enqueue: ").contains("--delay").contains("30s, 5m, 1h");

    Cli.Result both = Cli.run("reschedule", "orders", "o-1", "--delay", "5m", "--at", "2030-01-01T00:00:00Z");
    assertExit(both, 2);
    assertThat(both.err()).contains("mutually exclusive");

    Cli.Result typo = Cli.run("stat");
    assertExit(typo, 2);
    assertThat(typo.err()).contains("'stats'");

    Cli.Result noFile = Cli.run("enqueue", "orders", "@" + tmp.resolve("missing.json"));
    assertExit(noFile, 2);
    assertThat(noFile.err()).contains("missing.json does not exist");

    Cli.Result noSubcommand = Cli.run("dead");
    assertExit(noSubcommand, 2);
    assertThat(noSubcommand.err()).startsWith("delayq dead: ");
  }

  @Test
  void aServerWithATokenRefusesCallsWithoutItAsExitCode5() throws Exception {
    try (ServerProcess server = ServerProcess.start("--token", "s3cret-token")) {
      Cli.Result none = Cli.run("stats", "--server", server.baseUrl());
      assertExit(none, 5);
      assertThat(none.err()).startsWith("delayq stats: the delayq server at " + server.baseUrl() + " needs a token");

      Cli.Result wrong = Cli.run("stats", "--server", server.baseUrl(), "--token", "guess");
      assertExit(wrong, 5);
      assertThat(wrong.err()).contains("refused the token");

      Path tokenFile = Files.writeString(tmp.resolve("token"), "s3cret-token\n");
      Cli.Result right = Cli.run("stats", "--server", server.baseUrl(), "--token-file", tokenFile.toString());
      assertExit(right, 0);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "", "demo", "enqueue", "get", "cancel", "reschedule", "stats", "dead", "dead list", "dead requeue",
      "dead delete", "pause", "resume"})
  void helpExitsZeroAndNamesTheCommand(String command) {
    List<String> args = new java.util.ArrayList<>(command.isEmpty() ? List.of() : List.of(command.split(" ")));
    args.add("--help");
    Cli.Result help = Cli.run(args);
    assertExit(help, 0);
    String name = ("delayq " + command).strip();
    assertThat(help.out()).startsWith("Usage: " + name + " ").contains("Examples:");
    assertThat(help.err()).isEmpty();
  }
}
