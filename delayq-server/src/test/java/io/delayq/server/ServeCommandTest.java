package io.delayq.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The checks {@code serve} makes before it starts anything. */
class ServeCommandTest {
  @TempDir Path dir;

  private static DelayqServer.Settings settings(String... args) {
    ServeCommand command = new ServeCommand();
    new CommandLine(command).parseArgs(args);
    return command.settings();
  }

  @Test
  void defaultsToLoopbackWithoutAToken() {
    DelayqServer.Settings settings = settings("--port", "0", "--token", "", "--redis", "redis://127.0.0.1:6379");
    assertThat(settings.bind()).isEqualTo("127.0.0.1");
    assertThat(settings.token()).isNull();
    assertThat(settings.redisUrl()).isEqualTo("redis://127.0.0.1:6379");
  }

  @Test
  void capsPartitionsPerQueueAt64UnlessToldOtherwiseWithinTheCoresLimit() {
    assertThat(settings("--token", "").maxPartitions()).isEqualTo(64);
    assertThat(settings("--token", "", "--max-partitions", "1024").maxPartitions()).isEqualTo(1024);
    assertThatThrownBy(() -> settings("--token", "", "--max-partitions", "1025"))
        .isInstanceOf(ServeCommand.UsageException.class)
        .hasMessageContaining("--max-partitions (DELAYQ_MAX_PARTITIONS) must be between 1 and 1024; got 1025");
    assertThatThrownBy(() -> settings("--token", "", "--max-partitions", "0"))
        .isInstanceOf(ServeCommand.UsageException.class);
  }

  @Test
  void refusesANonLoopbackBindWithoutAToken() {
    assertThatThrownBy(() -> settings("--bind", "0.0.0.0", "--token", ""))
        .isInstanceOf(ServeCommand.UsageException.class)
        .hasMessageContaining("refusing to listen on 0.0.0.0 without a token")
        .hasMessageContaining("--token or DELAYQ_TOKEN")
        .hasMessageContaining("--bind 127.0.0.1");
    assertThat(settings("--bind", "0.0.0.0", "--token", "0123456789abcdef0123").token()).isEqualTo("0123456789abcdef0123");
    assertThat(settings("--bind", "localhost", "--token", "").bind()).isEqualTo("localhost");
  }

  @Test
  void takesAReadOnlyTokenOnlyBesideADifferentFullOne() throws Exception {
    DelayqServer.Settings both = settings("--token", "full-0123456789abcdef", "--read-only-token", "ro-0123456789abcdef");
    assertThat(both.http().readOnlyToken()).isEqualTo("ro-0123456789abcdef");
    Path file = Files.writeString(dir.resolve("ro"), " ro-from-file-0123456789\n");
    assertThat(settings("--token", "full-0123456789abcdef", "--read-only-token-file", file.toString())
        .http().readOnlyToken()).isEqualTo("ro-from-file-0123456789");
    assertThatThrownBy(() -> settings("--token", "", "--read-only-token", "ro-0123456789abcdef"))
        .isInstanceOf(ServeCommand.UsageException.class).hasMessageContaining("needs a full token too");
    assertThatThrownBy(() -> settings("--token", "same-0123456789abcdef", "--read-only-token", "same-0123456789abcdef"))
        .isInstanceOf(ServeCommand.UsageException.class).hasMessageContaining("equals the full token");
    assertThatThrownBy(() -> settings("--token", "full-0123456789abcdef", "--read-only-token", "ro",
        "--read-only-token-file", file.toString()))
        .isInstanceOf(ServeCommand.UsageException.class)
        .hasMessageContaining("both --read-only-token (DELAYQ_READ_ONLY_TOKEN) and --read-only-token-file");
    assertThatThrownBy(() -> settings("--token", "full-0123456789abcdef", "--read-only-token", "has space"))
        .isInstanceOf(ServeCommand.UsageException.class).hasMessageContaining("the read-only token holds a space");
  }

  @Test
  void takesABasePathOfPlainSegmentsOnly() {
    assertThat(settings("--token", "", "--base-path", "/ops/delayq").http().basePath()).isEqualTo("/ops/delayq");
    assertThat(settings("--token", "", "--base-path", "").http().basePath()).isNull();
    for (String bad : new String[] {"/", "delayq", "/delayq/", "/a b", "/..", "/x/./y"}) {
      assertThatThrownBy(() -> settings("--token", "", "--base-path", bad))
          .isInstanceOf(ServeCommand.UsageException.class)
          .hasMessageContaining("--base-path (DELAYQ_BASE_PATH) '" + bad.trim() + "' is not a path prefix");
    }
  }

  @Test
  void refusesABasePathThatWouldHideAnApiPath() {
    for (String shadowing : new String[] {"/v1", "/v1/queues", "/health", "/health/live", "/metrics", "/openapi.json"}) {
      String first = shadowing.indexOf('/', 1) < 0 ? shadowing : shadowing.substring(0, shadowing.indexOf('/', 1));
      assertThatThrownBy(() -> settings("--token", "", "--base-path", shadowing))
          .as(shadowing).isInstanceOf(ServeCommand.UsageException.class)
          .hasMessageContaining("'" + shadowing + "' starts with the API path " + first);
    }
    // a name that merely begins like one is its own segment, and strips nothing from the API
    assertThat(settings("--token", "", "--base-path", "/v1x").http().basePath()).isEqualTo("/v1x");
    assertThat(settings("--token", "", "--base-path", "/ops/health").http().basePath()).isEqualTo("/ops/health");
  }

  @Test
  void readsAndTrimsTheTokenFile() throws Exception {
    Path file = Files.writeString(dir.resolve("token"), "  s3cret-token-from-file\n");
    assertThat(settings("--token-file", file.toString(), "--token", "").token()).isEqualTo("s3cret-token-from-file");
  }

  @Test
  void refusesBadTokenSettings() throws Exception {
    assertThatThrownBy(() -> settings("--token-file", dir.resolve("missing").toString(), "--token", ""))
        .hasMessageContaining("cannot read --token-file (DELAYQ_TOKEN_FILE)");
    Path empty = Files.writeString(dir.resolve("empty"), "\n\n");
    assertThatThrownBy(() -> settings("--token-file", empty.toString(), "--token", "")).hasMessageContaining("is empty");
    Path big = Files.write(dir.resolve("big"), new byte[5000]);
    assertThatThrownBy(() -> settings("--token-file", big.toString(), "--token", "")).hasMessageContaining("5000 bytes");
    Path file = Files.writeString(dir.resolve("token"), "abc");
    assertThatThrownBy(() -> settings("--token-file", file.toString(), "--token", "xyz"))
        .hasMessageContaining("both --token (DELAYQ_TOKEN) and --token-file");
    assertThatThrownBy(() -> settings("--token", "two words")).hasMessageContaining("space or control character");
  }

  @Test
  void refusesPortsOutOfRange() {
    assertThatThrownBy(() -> settings("--port", "70000")).hasMessageContaining("--port (DELAYQ_PORT) must be between 0 and 65535");
  }

  @Test
  void refusesARabbitmqUrlThatCanNeverConnect() {
    assertThat(settings("--token", "", "--rabbitmq", "amqp://guest:guest@127.0.0.1:5672").rabbitmqUrl())
        .isEqualTo("amqp://guest:guest@127.0.0.1:5672");
    assertThatThrownBy(() -> settings("--token", "", "--rabbitmq", "amqp://guest:guest@127.0.0.1:99999"))
        .isInstanceOf(ServeCommand.UsageException.class)
        .hasMessageContaining("--rabbitmq (DELAYQ_RABBITMQ_URL)")
        .hasMessageContaining("port 99999")
        .hasMessageNotContaining("guest:guest");
    assertThatThrownBy(() -> settings("--token", "", "--rabbitmq", "http://127.0.0.1"))
        .isInstanceOf(ServeCommand.UsageException.class)
        .hasMessageContaining("is not a RabbitMQ URL");
  }

  @Test
  void theEmbeddedRedisPortIsFreeByDefaultAndCheckedWhenGiven() {
    assertThat(settings("--port", "0", "--token", "").redisPort()).isZero();
    assertThat(settings("--port", "0", "--token", "", "--redis-port", "6390").redisPort()).isEqualTo(6390);
    assertThatThrownBy(() -> settings("--token", "", "--redis-port", "70000"))
        .isInstanceOf(ServeCommand.UsageException.class)
        .hasMessageContaining("--redis-port (DELAYQ_REDIS_PORT) must be between 0 and 65535 (0: a free port); got 70000");
    assertThatThrownBy(() -> settings("--token", "", "--redis", "redis://127.0.0.1:6379", "--redis-port", "6390"))
        .isInstanceOf(ServeCommand.UsageException.class)
        .hasMessageContaining("--redis-port (DELAYQ_REDIS_PORT) is the port of the embedded Redis, which is not"
            + " started when --redis names a Redis");
  }

  @Test
  void aDataDirOthersMayWriteIsRefusedAndAMissingOneIsCreatedPrivate() throws Exception {
    Path created = DelayqServer.prepareDataDir(dir.resolve("new").resolve("data"));
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(created))).isEqualTo("rwx------");

    Path shared = Files.createDirectory(dir.resolve("shared"));
    Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxr-x"));
    assertThatThrownBy(() -> DelayqServer.prepareDataDir(shared))
        .hasMessageContaining("refusing --data-dir (DELAYQ_DATA_DIR) " + shared + ": its mode is rwxrwxr-x")
        .hasMessageContaining("chmod go-w " + shared);

    Path readable = Files.createDirectory(dir.resolve("readable"));
    Files.setPosixFilePermissions(readable, PosixFilePermissions.fromString("rwxr-xr-x"));
    assertThat(DelayqServer.prepareDataDir(readable)).as("only writable by others is refused").isEqualTo(readable);
  }

  @Test
  void restartsOfTheEmbeddedRedisBackOffFromHalfASecondToEight() {
    assertThat(IntStream.rangeClosed(1, 7).mapToObj(EmbeddedRedisSupervisor::backoff)
        .map(Duration::toMillis))
        .containsExactly(500L, 1_000L, 2_000L, 4_000L, 8_000L, 8_000L, 8_000L);
    assertThat(EmbeddedRedisSupervisor.MAX_RESTARTS).isEqualTo(5);
  }

  @Test
  void redactsPasswordsInRedisUrls() {
    assertThat(DelayqServer.redact("redis://user:pa55@host:6379/0")).isEqualTo("redis://***@host:6379/0");
    assertThat(DelayqServer.redact("rediss://:pw@a:1,b:2")).isEqualTo("rediss://***@a:1,b:2");
  }
}
