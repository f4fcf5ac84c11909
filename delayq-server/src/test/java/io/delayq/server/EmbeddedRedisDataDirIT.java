package io.delayq.server;

import static io.delayq.server.testing.EmbeddedRedisFiles.aof;
import static io.delayq.server.testing.EmbeddedRedisFiles.redisServersIn;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.server.testing.ApiClient;
import io.delayq.server.testing.ServerProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One data dir, one embedded Redis: a second {@code serve} or a {@code demo} on it is refused; a
 * server killed with SIGKILL takes its Redis with it (setpriv), or the next start stops the
 * orphan; either way the jobs survive and no two Redis servers ever share the AOF.
 */
class EmbeddedRedisDataDirIT {
  @TempDir Path dir;

  @Test
  void aSecondServerOrADemoOnTheSameDataDirIsRefusedNamingThePidThatHoldsIt() throws Exception {
    Path dataDir = dir.resolve("data");
    try (ServerProcess first = ServerProcess.startEmbedded(dataDir)) {
      ApiClient api = new ApiClient(first.baseUrl());
      assertThat(api.post("/v1/queues/lock/jobs", Map.of("id", "one", "payload", "x", "delayMs", 600_000)).status())
          .isEqualTo(201);

      ServerProcess.Exited second = ServerProcess.runToExit(Duration.ofSeconds(60),
          "serve", "--port", "0", "--data-dir", dataDir.toString());
      assertThat(second.exitCode()).as(second.output()).isEqualTo(1);
      assertThat(second.output())
          .contains("the data dir " + dataDir + " (--data-dir, DELAYQ_DATA_DIR) is in use by process " + first.pid())
          .contains("another --data-dir");

      ServerProcess.Exited demo = ServerProcess.runToExit(Duration.ofSeconds(60),
          "demo", "--jobs", "1", "--data-dir", dataDir.toString());
      assertThat(demo.exitCode()).as(demo.output()).isEqualTo(1);
      assertThat(demo.output()).contains("the data dir " + dataDir + " (--data-dir, DELAYQ_DATA_DIR) is in use by"
          + " process " + first.pid());

      assertThat(redisServersIn(dataDir.resolve("redis"))).containsExactly(first.embeddedRedisPid());
      assertThat(api.get("/v1/queues/lock/jobs/one").status()).as("the first server is unharmed").isEqualTo(200);
    }
  }

  @Test
  void afterKill9OfTheServerItsRedisIsGoneAndARestartHasTheJobs() throws Exception {
    Path dataDir = dir.resolve("data");
    long redisPid;
    try (ServerProcess first = ServerProcess.startEmbedded(dataDir)) {
      redisPid = first.embeddedRedisPid();
      scheduleDurably(first, dataDir, "survivor");

      first.kill();
    }
    // setpriv --pdeathsig: the embedded Redis dies with its server
    await("the embedded Redis exits with its server").atMost(Duration.ofSeconds(5))
        .until(() -> ProcessHandle.of(redisPid).isEmpty());

    try (ServerProcess second = ServerProcess.startEmbedded(dataDir)) {
      assertThat(redisServersIn(dataDir.resolve("redis"))).containsExactly(second.embeddedRedisPid());
      assertThat(new ApiClient(second.baseUrl()).get("/v1/queues/crash/jobs/survivor").json().path("payload").asText())
          .isEqualTo("survivor");
    }
  }

  @Test
  void withoutSetprivARestartStopsTheRedisAKilledServerLeftBehindAndHasTheJobs() throws Exception {
    Path dataDir = dir.resolve("data");
    long orphan;
    try (ServerProcess first = ServerProcess.launch().environment("PATH", "/nonexistent").startEmbedded(dataDir)) {
      assertThat(String.join("\n", first.output())).contains("setpriv (util-linux) with --pdeathsig is not on PATH");
      orphan = first.embeddedRedisPid();
      scheduleDurably(first, dataDir, "survivor");

      first.kill();
    }
    assertThat(ProcessHandle.of(orphan).map(ProcessHandle::isAlive)).as("the orphan outlived its server")
        .contains(true);

    try (ServerProcess second = ServerProcess.startEmbedded(dataDir)) {
      assertThat(ProcessHandle.of(orphan)).as("stopped by the restart").isEmpty();
      assertThat(String.join("\n", second.output()))
          .contains("redis-server pid " + orphan + " from an earlier run is still running on " + dataDir.resolve("redis"))
          .contains("redis-server pid " + orphan + " from the earlier run stopped");
      assertThat(redisServersIn(dataDir.resolve("redis"))).containsExactly(second.embeddedRedisPid());
      assertThat(new ApiClient(second.baseUrl()).get("/v1/queues/crash/jobs/survivor").json().path("payload").asText())
          .isEqualTo("survivor");
    }
  }

  /** Schedules a job and waits until Redis wrote it to the AOF, so a SIGKILL cannot lose it. */
  private static void scheduleDurably(ServerProcess server, Path dataDir, String id) throws Exception {
    ApiClient api = new ApiClient(server.baseUrl());
    assertThat(api.post("/v1/queues/crash/jobs", Map.of("id", id, "payload", id, "delayMs", 3_600_000)).status())
        .isEqualTo(201);
    await().atMost(Duration.ofSeconds(5)).until(() -> aof(dataDir.resolve("redis")).contains(id));
  }
}
