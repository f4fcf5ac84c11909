package io.delayq.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A locked-down server, on the bundled Redis 6.2 and on the machine's redis-server (7.x here): a password, no
 * CONFIG/DEBUG/MODULE, protected mode, loopback only, and private files whatever the settings.
 */
class LockedDownTest {

    @TempDir Path dir;

    static Stream<String> binaries() {
        return Stream.of("bundled", "machine");
    }

    private static Path binary(String which) {
        if (which.equals("bundled")) {
            return RedisServerProcess.bundledBinary();
        }
        Optional<Path> machine = RedisServerProcess.machineBinary();
        assumeThat(machine).as("redis-server on PATH").isPresent();
        return machine.get();
    }

    @ParameterizedTest
    @MethodSource("binaries")
    void refusesClientsWithoutThePasswordAndCommandsThatRewriteFiles(String which) throws Exception {
        try (RedisServerProcess redis = RedisServerProcess.builder().binary(binary(which)).lockedDown(true)
                .dataDir(dir.resolve("redis")).start()) {
            assertThat((String) RawRedis.call(redis.port(), "PING")).startsWith("-NOAUTH");
            assertThat((String) RawRedis.call(redis.port(), "GET", "k")).startsWith("-NOAUTH");
            // Redis looks the command up before it checks authentication
            assertThat((String) RawRedis.call(redis.port(), "CONFIG", "SET", "dir", "/tmp"))
                    .startsWith("-ERR unknown command");

            String password = redis.uriWithPassword().replaceAll("^redis://:([0-9a-f]{64})@127\\.0\\.0\\.1:\\d+$", "$1");
            assertThat(password).as(redis.uriWithPassword()).hasSize(64);
            try (RawRedis client = new RawRedis(redis.port())) {
                assertThat(client.send("AUTH", "wrong")).asString().startsWith("-");
                assertThat(client.send("AUTH", password)).isEqualTo("+OK");
                assertThat(client.send("SET", "k", "v")).isEqualTo("+OK");
                assertThat(client.send("CONFIG", "SET", "dir", "/tmp")).asString().startsWith("-ERR unknown command");
                assertThat(client.send("CONFIG", "GET", "requirepass")).asString().startsWith("-ERR unknown command");
                assertThat(client.send("DEBUG", "SLEEP", "0")).asString().startsWith("-ERR unknown command");
                assertThat(client.send("MODULE", "LIST")).asString().startsWith("-ERR unknown command");
                assertThat(client.send("SAVE")).isEqualTo("+OK");
            }
            assertThat(redis.dataDir().resolve("redis.conf")).content()
                    .containsSubsequence("bind 127.0.0.1\n", "protected-mode yes\n")
                    .doesNotContain("protected-mode no");
            assertThat(redis.logFile()).content().doesNotContain(password);

            long pid = redis.pid();
            redis.stop();
            assertThat(ProcessHandle.of(pid)).isEmpty();
            assertThat(redis.logFile()).content().contains("ready to exit");
        }
    }

    @Test
    void thePasswordSurvivesARestartButNotANewInstance() {
        String first;
        try (RedisServerProcess redis = RedisServerProcess.builder().lockedDown(true).start()) {
            first = redis.uriWithPassword();
            redis.kill();
            redis.restart();
            assertThat(redis.uriWithPassword()).isEqualTo(first);
            try (RawRedis client = new RawRedis(redis.port())) {
                assertThat(client.send("AUTH", first.substring("redis://:".length(), first.indexOf('@'))))
                        .isEqualTo("+OK");
            }
        }
        try (RedisServerProcess redis = RedisServerProcess.builder().lockedDown(true).start()) {
            assertThat(redis.uriWithPassword()).isNotEqualTo(first);
        }
    }

    @Test
    void withoutLockDownThereIsNoPasswordAndUriWithPasswordIsTheUri() {
        try (RedisServerProcess redis = RedisServerProcess.builder().start()) {
            assertThat(redis.uriWithPassword()).isEqualTo(redis.uri());
            assertThat(RawRedis.call(redis.port(), "PING")).isEqualTo("+PONG");
        }
        try (RedisServerProcess redis = RedisServerProcess.builder().setting("requirepass", "a b/c").start()) {
            assertThat(redis.uriWithPassword()).isEqualTo("redis://:a%20b%2Fc@127.0.0.1:" + redis.port());
        }
    }

    @ParameterizedTest
    @MethodSource("binaries")
    void theDataDirAndEveryFileInItArePrivate(String which) throws Exception {
        Path dataDir = dir.resolve("redis");
        try (RedisServerProcess redis = RedisServerProcess.builder().binary(binary(which)).lockedDown(true)
                .appendOnly(true).appendFsync("always").dataDir(dataDir).start()) {
            try (RawRedis client = new RawRedis(redis.port())) {
                client.send("AUTH", redis.uriWithPassword().substring(9, 9 + 64));
                assertThat(client.send("SET", "k", "v")).isEqualTo("+OK");
                assertThat(client.send("BGREWRITEAOF")).asString().startsWith("+");
            }
            Map<String, String> modes = Modes.tree(dataDir);
            assertThat(modes).containsEntry(".", "rwx------")
                    .containsKeys("redis.conf", "redis.log", "redis.pid", "redis.lock", "redis.stdout.log")
                    .anySatisfy((name, mode) -> assertThat(name).startsWith("appendonly"));
            modes.forEach((name, mode) -> assertThat(mode).as(name).isIn("rw-------", "rwx------"));
        }
    }

    @Test
    void filesAnOlderVersionLeftReadableBecomePrivateAtTheNextStart() throws Exception {
        Path dataDir = Files.createDirectory(dir.resolve("redis"));
        Files.setPosixFilePermissions(dataDir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path aof = Files.writeString(dataDir.resolve("appendonly.aof"), "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$3\r\nold\r\n");
        Files.setPosixFilePermissions(aof, PosixFilePermissions.fromString("rw-r--r--"));
        Path log = Files.writeString(dir.resolve("redis.log"), "an old log\n");
        Files.setPosixFilePermissions(log, PosixFilePermissions.fromString("rw-r--r--"));

        try (RedisServerProcess redis = RedisServerProcess.builder().appendOnly(true).dataDir(dataDir).logFile(log)
                .start()) {
            assertThat(RawRedis.call(redis.port(), "GET", "k")).isEqualTo("old");
            assertThat(Modes.of(dataDir)).isEqualTo("rwx------");
            assertThat(Modes.of(aof)).isEqualTo("rw-------");
            assertThat(Modes.of(log)).isEqualTo("rw-------");
        }
    }

    @Test
    void aDataDirOthersMayWriteIsRefused() throws Exception {
        Path open = Files.createDirectory(dir.resolve("open"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertThatThrownBy(() -> RedisServerProcess.builder().dataDir(open).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(open.toString())
                .hasMessageContaining("0777")
                .hasMessageContaining("chmod 700");
        assertThat(Modes.of(open)).as("left as it was").isEqualTo("rwxrwxrwx");
    }

    @Test
    void aDataDirOfAnotherUserIsRefused() throws Exception {
        assumeThat(Modes.isRoot()).as("only root can make a directory another user owns").isTrue();
        Path foreign = Files.createDirectory(dir.resolve("foreign"));
        Files.setAttribute(foreign, "unix:uid", 65534);
        assertThatThrownBy(() -> RedisServerProcess.builder().dataDir(foreign).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(foreign.toString())
                .hasMessageContaining("owned by uid 65534");
        assertThat(List.of(foreign.toFile().list())).isEmpty();
    }
}
