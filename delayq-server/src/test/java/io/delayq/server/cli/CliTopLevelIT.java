package io.delayq.server.cli;

import static io.delayq.server.cli.CliContract.assertExit;
import static org.assertj.core.api.Assertions.assertThat;

import io.delayq.server.testing.ServerProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The root of the command line: serve as the default, help, version. */
class CliTopLevelIT {
  /** The project's version, handed over by the build (failsafe's systemPropertyVariables). */
  private static final String VERSION = System.getProperty("delayq.version", "(delayq.version not set by the build)");

  @TempDir Path dataDir;

  @Test
  void serveIsTheDefaultSoItsOptionsWorkWithoutNamingIt() throws Exception {
    List<String> args = new ArrayList<>(List.of("--port", "0", "--data-dir", dataDir.toString()));
    String redis = ServerProcess.testRedis();
    if (redis != null) {
      args.addAll(List.of("--redis", redis));
    }
    try (ServerProcess server = ServerProcess.startWithArguments(dataDir, args)) {
      HttpResponse<String> health = HttpClient.newHttpClient().send(
          HttpRequest.newBuilder(URI.create(server.baseUrl() + "/health")).timeout(Duration.ofSeconds(10)).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
    }
  }

  @Test
  void serveOptionsAtTheTopAreCheckedAsServesOwn() {
    Cli.Result badPort = Cli.run("--port", "70000");
    assertThat(badPort.exitCode()).as("%s", badPort).isEqualTo(2);
    assertThat(badPort.err()).contains("delayq serve: --port (DELAYQ_PORT) must be between 0 and 65535; got 70000");

    Cli.Result withEquals = Cli.run("--port=70001");
    assertThat(withEquals.err()).as("%s", withEquals).contains("got 70001");

    Cli.Result commandAfterOptions = Cli.run("--token", "x", "stats");
    assertExit(commandAfterOptions, 2);
    assertThat(commandAfterOptions.err()).startsWith("delayq serve: ")
        .contains("'stats'").contains("put the options after the command: delayq stats --token");

    Cli.Result unknown = Cli.run("--bogus");
    assertExit(unknown, 2);
    assertThat(unknown.err()).startsWith("delayq: Unknown option: '--bogus'. See 'delayq --help'");
  }

  @Test
  void helpAndVersionAtTheTopStayTheRootsOwn() {
    for (String flag : List.of("-h", "--help")) {
      Cli.Result help = Cli.run(flag);
      assertExit(help, 0);
      assertThat(help.out()).startsWith("Usage: delayq [-hV] [COMMAND]");
    }
    for (String flag : List.of("-V", "--version")) {
      Cli.Result version = Cli.run(flag);
      assertExit(version, 0);
      assertThat(version.out()).isEqualTo("delayq " + VERSION + System.lineSeparator());
    }
  }

  @Test
  void theShadedJarsManifestCarriesTheVersion() throws Exception {
    try (JarFile jar = new JarFile(ServerProcess.jar().toFile())) {
      assertThat(jar.getManifest().getMainAttributes().getValue("Implementation-Version")).isEqualTo(VERSION);
    }
  }

  @Test
  void helpIsACommandToo() {
    Cli.Result help = Cli.run("help");
    assertExit(help, 0);
    assertThat(help.out()).startsWith("Usage: delayq [-hV] [COMMAND]").contains("help ");

    Cli.Result ofStats = Cli.run("help", "stats");
    assertExit(ofStats, 0);
    assertThat(ofStats.out()).startsWith("Usage: delayq stats ");

    Cli.Result unknown = Cli.run("help", "nope");
    assertExit(unknown, 2);
    assertThat(unknown.err()).contains("nope");
  }
}
