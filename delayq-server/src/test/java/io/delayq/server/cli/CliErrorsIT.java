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
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
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
  @EnabledOnOs({OS.LINUX, OS.MAC})
  void aPayloadWithoutEndIsRefusedAtTheLimitInsteadOfFillingTheHeap() {
    Cli.Result endless = Cli.run("enqueue", "orders", "@/dev/zero", "--server", "http://127.0.0.1:" + Cli.freePort());
    assertExit(endless, 2);
    assertThat(endless.err()).isEqualTo("delayq enqueue: the payload in /dev/zero is larger than the limit of"
        + " 1,048,576 bytes; store the body elsewhere (a file store, a database) and enqueue its key instead"
        + System.lineSeparator());
  }

  @Test
  void aPayloadOnStdinOneByteOverTheLimitIsRefusedBeforeAnythingIsSent() {
    byte[] tooLarge = new byte[1024 * 1024 + 1];
    java.util.Arrays.fill(tooLarge, (byte) 'x');
    Cli.Result result = Cli.run(List.of("enqueue", "orders", "-", "--server", "http://127.0.0.1:" + Cli.freePort()),
        tooLarge, Map.of());
    assertExit(result, 2);
    assertThat(result.err()).startsWith("delayq enqueue: the payload on stdin is larger than the limit of 1,048,576 bytes");

    byte[] atTheLimitPlusNewline = java.util.Arrays.copyOf(tooLarge, tooLarge.length);
    atTheLimitPlusNewline[tooLarge.length - 1] = '\n';
    Cli.Result fits = Cli.run(List.of("enqueue", "orders", "-", "--server", "http://127.0.0.1:" + Cli.freePort()),
        atTheLimitPlusNewline, Map.of());
    assertExit(fits, 1);
    assertThat(fits.err()).as("read whole, then sent").contains("cannot reach delayq server");
  }

  @Test
  void usageErrorsShowControlCharactersEscaped() {
    Cli.Result result = Cli.run("stats", "--\u001b]0;owned\u0007\u202e");
    assertExit(result, 2);
    assertThat(result.err()).contains("'--\\u001b]0;owned\\u0007\\u202e'");
    CliContract.assertNoTerminalControls(result.err());
  }

  @Test
  void theHelpNamesEveryEnvironmentVariable() {
    String help = Cli.run("--help").out().replaceAll("\\s+", " ");
    assertThat(help).contains("DELAYQ_SERVER").contains("REDIS_URL").contains("DELAYQ_TOKEN")
        .contains("DELAYQ_TOKEN_FILE").contains("DELAYQ_PORT").contains("DELAYQ_DEBUG").contains("JAVA_OPTS");
    String enqueueHelp = Cli.run("enqueue", "--help").out().replaceAll("\\s+", " ");
    assertThat(enqueueHelp).contains("--raw").contains("trailing newline").contains("--partitions");
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
      "dead delete", "pause", "resume", "jobs", "jobs ls", "delete-queue"})
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
