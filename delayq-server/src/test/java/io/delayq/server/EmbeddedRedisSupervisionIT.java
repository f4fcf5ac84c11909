package io.delayq.server;

import static io.delayq.server.testing.EmbeddedRedisFiles.aof;
import static io.delayq.server.testing.EmbeddedRedisFiles.password;
import static io.delayq.server.testing.EmbeddedRedisFiles.port;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.server.testing.ApiClient;
import io.delayq.server.testing.ServerProcess;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * When the embedded Redis dies under a running server, the server restarts it on the same port,
 * password and data, and calls work again with the jobs there; when it cannot, the server exits
 * with code 1 instead of answering 503 for ever.
 */
class EmbeddedRedisSupervisionIT {
  private static final Pattern BACK = Pattern.compile("the embedded Redis is back after restart 1 of 5: pid (\\d+)");

  @TempDir Path dir;

  @Test
  void aKilledEmbeddedRedisIsRestartedAndCallsWorkAgainWithTheJobs() throws Exception {
    Path dataDir = dir.resolve("data");
    try (ServerProcess server = ServerProcess.startEmbedded(dataDir)) {
      ApiClient api = new ApiClient(server.baseUrl());
      assertThat(api.post("/v1/queues/sup/jobs", Map.of("id", "kept", "payload", "kept", "delayMs", 3_600_000))
          .status()).isEqualTo(201);
      await().atMost(Duration.ofSeconds(5)).until(() -> aof(dataDir.resolve("redis")).contains("kept"));
      long first = server.embeddedRedisPid();
      String password = password(server.redisUrl());

      ProcessHandle.of(first).orElseThrow().destroyForcibly();

      AtomicReference<Long> restarted = new AtomicReference<>();
      await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
        Matcher back = server.output().stream().map(BACK::matcher).filter(Matcher::find).findFirst()
            .orElseThrow(() -> new AssertionError("no restart yet"));
        restarted.set(Long.parseLong(back.group(1)));
      });
      assertThat(restarted.get()).isNotEqualTo(first);
      await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
        assertThat(api.get("/health").status()).isEqualTo(200);
        assertThat(api.post("/v1/queues/sup/jobs", Map.of("payload", "after")).status()).isEqualTo(201);
      });
      assertThat(api.get("/v1/queues/sup/jobs/kept").json().path("payload").asText()).isEqualTo("kept");
      assertThat(String.join("\n", server.output()))
          .contains("the embedded Redis (pid " + first + ") exited on its own; restarting it in 500 ms (attempt 1 of 5)");

      assertThat(server.redisUrl()).as("same password and port after the restart").contains(password);
      assertThat(server.terminate(Duration.ofSeconds(15))).isZero();
      assertThat(String.join("\n", server.output())).contains("embedded Redis stopped with SHUTDOWN")
          .as("not even the reconnect errors name the password").doesNotContain(password);
    }
  }

  @Test
  void whenTheEmbeddedRedisCannotBeRestartedTheServerExitsWithCode1() throws Exception {
    int redisPort = freePort();
    Path dataDir = dir.resolve("data");
    try (ServerProcess server = ServerProcess.startEmbedded(dataDir, "--redis-port", Integer.toString(redisPort))) {
      assertThat(port(server.redisUrl())).as("--redis-port").isEqualTo(redisPort);
      long redis = server.embeddedRedisPid();

      ProcessHandle.of(redis).orElseThrow().destroyForcibly();
      // Another program takes the port the moment Redis lets go of it: no restart can bind it.
      try (ServerSocket squatter = await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(5))
          .until(() -> bind(redisPort), s -> s != null)) {
        assertThat(server.awaitExit(Duration.ofSeconds(60))).as(String.join("\n", server.output())).isEqualTo(1);
      }
      String output = String.join("\n", server.output());
      for (int attempt = 1; attempt <= 4; attempt++) {
        assertThat(output).contains("restart " + attempt + " of 5 of the embedded Redis failed");
      }
      assertThat(output).contains("restart 5 of 5 failed").contains("giving up on it")
          .contains("exits with code 1 rather than answer 503 for ever").contains("shutdown: done");
    }
  }

  private static ServerSocket bind(int port) {
    try {
      return new ServerSocket(port, 50, InetAddress.getLoopbackAddress());
    } catch (IOException taken) {
      return null;
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
