package io.delayq.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayq.server.testing.ServerProcess;
import io.delayq.server.testing.ServerProcess.Exited;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code delayq serve} refuses unsafe or broken settings before it starts anything: exit code 2. */
class ServeConfigIT {
  private static final Duration EXIT = Duration.ofSeconds(30);

  @TempDir Path dir;

  @Test
  void aNonLoopbackBindWithoutATokenIsRefused() throws Exception {
    Exited run = ServerProcess.runToExit(EXIT, "serve", "--bind", "0.0.0.0", "--port", "0", "--data-dir", dir.toString());
    assertThat(run.exitCode()).as(run.output()).isEqualTo(2);
    assertThat(run.output())
        .contains("refusing to listen on 0.0.0.0 without a token")
        .contains("--token")
        .contains("DELAYQ_TOKEN")
        .contains("--bind 127.0.0.1")
        .doesNotContain("listening on");
    assertThat(dir.resolve("redis")).as("no Redis was started").doesNotExist();
  }

  @Test
  void anUnreadableOrEmptyTokenFileIsRefused() throws Exception {
    Exited missing = ServerProcess.runToExit(EXIT, "serve", "--port", "0", "--token-file", dir.resolve("nope").toString());
    assertThat(missing.exitCode()).as(missing.output()).isEqualTo(2);
    assertThat(missing.output()).contains("cannot read --token-file").contains("nope");

    Path empty = Files.writeString(dir.resolve("token"), " \n");
    Exited blank = ServerProcess.runToExit(EXIT, "serve", "--port", "0", "--token-file", empty.toString());
    assertThat(blank.exitCode()).as(blank.output()).isEqualTo(2);
    assertThat(blank.output()).contains("--token-file").contains("is empty");
  }
}
