package io.delayq.server;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** How the command line decides that serve is meant. */
class MainTest {
  private static String[] effective(String... args) {
    return Main.withDefaultCommand(new CommandLine(new Main()), args);
  }

  @Test
  void serveIsPutInFrontOfNothingOrOfServesOwnOptions() {
    assertThat(effective()).containsExactly("serve");
    assertThat(effective("--port", "8080")).containsExactly("serve", "--port", "8080");
    assertThat(effective("--port=8080", "--bind", "::1")).containsExactly("serve", "--port=8080", "--bind", "::1");
    assertThat(effective("--redis", "redis://db:6379")).containsExactly("serve", "--redis", "redis://db:6379");
  }

  @Test
  void commandsTheRootsOptionsAndUnknownOptionsAreLeftAlone() {
    assertThat(effective("stats", "--port", "1")).containsExactly("stats", "--port", "1");
    assertThat(effective("serve", "--port", "1")).containsExactly("serve", "--port", "1");
    assertThat(effective("-h")).containsExactly("-h");
    assertThat(effective("--version")).containsExactly("--version");
    assertThat(effective("-V", "--port", "1")).containsExactly("-V", "--port", "1");
    assertThat(effective("--bogus")).containsExactly("--bogus");
    assertThat(effective("-")).containsExactly("-");
  }

  @Test
  void theVersionComesFromTheBuild() {
    String[] version = new Main.Version().getVersion();
    assertThat(version).hasSize(1);
    assertThat(version[0]).matches("delayq \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?");
  }
}
