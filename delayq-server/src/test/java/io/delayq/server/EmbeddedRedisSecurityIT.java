package io.delayq.server;

import static io.delayq.server.testing.EmbeddedRedisFiles.modes;
import static io.delayq.server.testing.EmbeddedRedisFiles.password;
import static io.delayq.server.testing.EmbeddedRedisFiles.port;
import static io.delayq.server.testing.EmbeddedRedisFiles.rawCommands;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.delayq.server.testing.ApiClient;
import io.delayq.server.testing.EmbeddedRedisFiles;
import io.delayq.server.testing.ServerProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedded Redis of {@code delayq serve}, seen as another local user would see it: a password
 * it does not have, no CONFIG even with the password, private files, and a redis-server binary
 * that nobody else can swap.
 */
class EmbeddedRedisSecurityIT {
  @TempDir Path dir;

  @Test
  void refusesClientsWithoutThePasswordAndRefusesConfigDebugAndModuleWithIt() throws Exception {
    Path dataDir = dir.resolve("data");
    try (ServerProcess server = ServerProcess.startEmbedded(dataDir)) {
      String url = server.redisUrl();
      assertThat(url).matches("redis://:[0-9a-f]{64}@127\\.0\\.0\\.1:\\d+");
      int port = port(url);
      String password = password(url);

      assertThat(rawCommands(port, "GET x", "KEYS *", "SET dir x")).allMatch(reply -> reply.startsWith("-NOAUTH"));
      assertThat(rawCommands(port, "AUTH " + password, "CONFIG SET dir /tmp", "CONFIG GET dir", "DEBUG SLEEP 0",
          "MODULE LIST", "PING")).containsExactly(
              "+OK",
              "-ERR unknown command `CONFIG`, with args beginning with: `SET`, `dir`, `/tmp`, ",
              "-ERR unknown command `CONFIG`, with args beginning with: `GET`, `dir`, ",
              "-ERR unknown command `DEBUG`, with args beginning with: `SLEEP`, `0`, ",
              "-ERR unknown command `MODULE`, with args beginning with: `LIST`, ",
              "+PONG");
      assertThat(dataDir.resolve("redis/redis.conf")).content()
          .startsWith("bind 127.0.0.1\n").contains("\nprotected-mode yes\n")
          .doesNotContain("protected-mode no");

      RedisClient client = RedisClient.create(url);
      try (StatefulRedisConnection<String, String> connection = client.connect()) {
        assertThat(connection.sync().ping()).as("the URL in redis-url works for a client library").isEqualTo("PONG");
      } finally {
        client.shutdown();
      }
      ApiClient api = new ApiClient(server.baseUrl());
      assertThat(api.post("/v1/queues/sec/jobs", Map.of("payload", "secret payload")).status()).isEqualTo(201);

      assertThat(server.terminate(Duration.ofSeconds(15))).isZero();
      assertThat(String.join("\n", server.output()))
          .doesNotContain(password)
          .contains("embedded Redis ready: pid ")
          .contains("redis://***@127.0.0.1:" + port)
          .contains("its URL, password included, is in " + dataDir.resolve("redis-url"));
      assertThat(dataDir.resolve("redis.log")).content().doesNotContain(password);
      assertThat(dataDir.resolve("redis-url")).as("deleted at a clean shutdown: the password is gone").doesNotExist();
    }
  }

  @Test
  void theDataDirIsPrivateAndSoIsEveryFileInIt() throws Exception {
    Path dataDir = dir.resolve("data");
    try (ServerProcess server = ServerProcess.startEmbedded(dataDir)) {
      ApiClient api = new ApiClient(server.baseUrl());
      assertThat(api.post("/v1/queues/modes/jobs", Map.of("id", "j", "payload", "private", "delayMs", 600_000))
          .status()).isEqualTo(201);
      assertThat(EmbeddedRedisFiles.aof(dataDir.resolve("redis"))).contains("private");

      Map<String, String> modes = modes(dataDir);
      assertThat(modes).containsEntry(".", "rwx------").containsEntry("redis", "rwx------")
          .containsEntry("redis-url", "rw-------").containsEntry("redis.log", "rw-------")
          .containsEntry("redis/appendonly.aof", "rw-------");
      modes.forEach((name, mode) -> assertThat(mode).as(name).isIn("rw-------", "rwx------"));
    }
  }

  @Test
  void aPlantedRedisServerBinaryIsRefusedAndNeverRun() throws Exception {
    Path tmp = Files.createDirectory(dir.resolve("tmp"));
    ServerProcess.Launch launch = ServerProcess.launch().jvmArg("-Djava.io.tmpdir=" + tmp);
    try (ServerProcess first = launch.startEmbedded(dir.resolve("data"))) {
      assertThat(first.terminate(Duration.ofSeconds(15))).isZero();
    }
    List<Path> binaries = filesIn(cacheDir(tmp));
    assertThat(binaries).isNotEmpty();
    Path marker = dir.resolve("planted-program-ran");
    for (Path binary : binaries) {
      plantScript(binary, marker);
    }

    ServerProcess.Exited second = launch.runToExit(Duration.ofSeconds(60),
        "serve", "--port", "0", "--data-dir", dir.resolve("data").toString());

    assertThat(marker).as("the planted program never ran").doesNotExist();
    assertThat(second.exitCode()).as(second.output()).isEqualTo(1);
    assertThat(second.output()).contains("Refusing to run " + binaries.get(0)).contains("SHA-256")
        .contains("something replaced it");
  }

  @Test
  void aBinaryCacheDirOthersMayWriteIsRefused() throws Exception {
    Path tmp = Files.createDirectory(dir.resolve("tmp"));
    Path cache = Files.createDirectory(tmp.resolve("delayq-embedded-" + System.getProperty("user.name")));
    Files.setPosixFilePermissions(cache, PosixFilePermissions.fromString("rwxrwxrwx"));

    ServerProcess.Exited run = ServerProcess.launch().jvmArg("-Djava.io.tmpdir=" + tmp)
        .runToExit(Duration.ofSeconds(60), "serve", "--port", "0", "--data-dir", dir.resolve("data").toString());

    assertThat(run.exitCode()).as(run.output()).isEqualTo(1);
    assertThat(run.output()).contains("Refusing to use the redis-server binary cache dir " + cache)
        .contains("its mode is 0777").contains("chmod 700 " + cache);
    assertThat(filesIn(cache)).as("nothing extracted into it").isEmpty();
  }

  @Test
  void aBinaryCacheDirAnotherUserOwnsIsRefused() throws Exception {
    assumeThat(System.getProperty("user.name")).as("only root can make a directory another user owns")
        .isEqualTo("root");
    Path tmp = Files.createDirectory(dir.resolve("tmp"));
    Path cache = Files.createDirectory(tmp.resolve("delayq-embedded-root"));
    Files.setPosixFilePermissions(cache, PosixFilePermissions.fromString("rwx------"));
    Files.setAttribute(cache, "unix:uid", 65534);

    ServerProcess.Exited run = ServerProcess.launch().jvmArg("-Djava.io.tmpdir=" + tmp)
        .runToExit(Duration.ofSeconds(60), "serve", "--port", "0", "--data-dir", dir.resolve("data").toString());

    assertThat(run.exitCode()).as(run.output()).isEqualTo(1);
    assertThat(run.output()).contains("Refusing to use the redis-server binary cache dir " + cache)
        .contains("owned by uid 65534").contains("not by this user (uid 0)");
    assertThat(filesIn(cache)).isEmpty();
  }

  private static Path cacheDir(Path tmp) throws IOException {
    try (Stream<Path> dirs = Files.list(tmp)) {
      return dirs.filter(d -> d.getFileName().toString().startsWith("delayq-embedded-")).findFirst().orElseThrow();
    }
  }

  private static List<Path> filesIn(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(Files::isRegularFile).sorted().toList();
    }
  }

  /** Replaces {@code file} by a script of the same size and mode that leaves {@code marker} if run. */
  private static void plantScript(Path file, Path marker) throws IOException {
    byte[] script = ("#!/bin/sh\ntouch '" + marker + "'\nexit 1\n").getBytes(StandardCharsets.UTF_8);
    byte[] padded = Arrays.copyOf(script, (int) Files.size(file));
    Arrays.fill(padded, script.length, padded.length, (byte) '#');
    Files.write(file, padded);
  }
}
