package io.delayq.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One data dir, one server: a second one (in this JVM or another) is refused while the first holds the lock; a
 * server whose JVM is SIGKILLed dies with it (setpriv) or, where it cannot, is stopped by the next start.
 */
class DataDirTest {

    @TempDir Path dir;

    @Test
    void aSecondServerInThisJvmIsRefusedUntilTheFirstIsClosed() {
        Path dataDir = dir.resolve("redis");
        RedisServerProcess first = RedisServerProcess.builder().dataDir(dataDir).start();
        try (RedisServerProcess second = RedisServerProcess.builder().dataDir(dataDir).build()) {
            assertThatThrownBy(second::start)
                    .isInstanceOfSatisfying(DataDirInUseException.class, e -> {
                        assertThat(e.dataDir()).isEqualTo(dataDir);
                        assertThat(e.holderPid()).hasValue(ProcessHandle.current().pid());
                    })
                    .hasMessageContaining("data dir " + dataDir + " is in use by process "
                            + ProcessHandle.current().pid() + " (this JVM)");
            assertThat(first.isAlive()).isTrue();
            assertThat(RawRedis.call(first.port(), "PING")).as("the refusal left the first one's lock alone")
                    .isEqualTo("+PONG");

            first.stop();
            assertThatThrownBy(second::start).as("stopped is not closed: it will start again")
                    .isInstanceOf(DataDirInUseException.class);

            first.close();
            second.start();
            assertThat(RawRedis.call(second.port(), "PING")).isEqualTo("+PONG");
        }
    }

    @Test
    void aServerInAnotherJvmIsRefusedWithThatJvmsPid() throws Exception {
        Path dataDir = dir.resolve("redis");
        try (ChildJvm child = ChildJvm.start(dataDir, Map.of())) {
            child.awaitLine("redis-pid");
            try (RedisServerProcess here = RedisServerProcess.builder().dataDir(dataDir).build()) {
                assertThatThrownBy(here::start)
                        .isInstanceOf(DataDirInUseException.class)
                        .hasMessageContaining("data dir " + dataDir + " is in use by process " + child.pid() + ",");
                assertThat(here.isAlive()).isFalse();
                assertThat(redisServersIn(dataDir)).hasSize(1);
            }

            try (ChildJvm third = ChildJvm.start(dataDir, Map.of())) {
                assertThat(third.awaitLine("refused")).contains("in use by process " + child.pid());
                assertThat(third.process().waitFor()).isEqualTo(3);
            }
        }
    }

    @Test
    void withSetprivTheServerDiesWithItsSigkilledJvm() throws Exception {
        assertThat(ChildLauncher.diesWithParent()).as("setpriv --pdeathsig on PATH").isTrue();
        Path dataDir = dir.resolve("redis");
        try (ChildJvm child = ChildJvm.start(dataDir, Map.of())) {
            long redisPid = Long.parseLong(child.awaitLine("redis-pid"));

            child.kill();

            await().atMost(Duration.ofSeconds(5)).until(() -> ProcessHandle.of(redisPid).isEmpty());
        }
        try (RedisServerProcess redis = RedisServerProcess.builder().dataDir(dataDir).appendOnly(true).start()) {
            assertThat(RawRedis.call(redis.port(), "GET", "k")).isEqualTo("v");
        }
    }

    @Test
    void withoutSetprivTheNextStartStopsTheOrphanOfASigkilledJvmAndKeepsItsData() throws Exception {
        Path dataDir = dir.resolve("redis");
        long orphanPid;
        int orphanPort;
        try (ChildJvm child = ChildJvm.start(dataDir, Map.of("PATH", "/nonexistent"))) {
            orphanPid = Long.parseLong(child.awaitLine("redis-pid"));
            orphanPort = Integer.parseInt(child.awaitLine("port"));
            assertThat(child.lines()).anyMatch(line -> line.contains("setpriv (util-linux) with --pdeathsig is not on"
                    + " PATH"));

            child.kill();
        }
        assertThat(ProcessHandle.of(orphanPid).map(ProcessHandle::isAlive)).as("the orphan outlived its JVM")
                .contains(true);
        assertThat(RawRedis.call(orphanPort, "PING")).isEqualTo("+PONG");

        try (RedisServerProcess redis = RedisServerProcess.builder().dataDir(dataDir).appendOnly(true).start()) {
            assertThat(ProcessHandle.of(orphanPid)).as("the orphan was stopped").isEmpty();
            assertThat(redisServersIn(dataDir)).containsExactly(redis.pid());
            assertThat(RawRedis.call(redis.port(), "GET", "k")).isEqualTo("v");
        }
    }

    @Test
    void aStalePidFileOfSomeOtherProcessIsIgnored() throws Exception {
        Path dataDir = Files.createDirectory(dir.resolve("redis"));
        Process other = new ProcessBuilder("sleep", "30").start();
        try {
            Files.writeString(dataDir.resolve("redis.pid"), other.pid() + "\n");
            try (RedisServerProcess redis = RedisServerProcess.builder().dataDir(dataDir).start()) {
                assertThat(other.isAlive()).as("not a redis-server: left alone").isTrue();
                assertThat(dataDir.resolve("redis.pid")).content().isEqualTo(redis.pid() + "\n");
            }
        } finally {
            other.destroyForcibly().waitFor();
        }
    }

    /** The pids of the redis-server processes whose working directory is {@code dataDir} (from /proc). */
    static List<Long> redisServersIn(Path dataDir) throws IOException {
        Path real = dataDir.toRealPath();
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            return procs.filter(p -> p.getFileName().toString().matches("\\d+"))
                    .filter(p -> {
                        try {
                            return Files.readSymbolicLink(p.resolve("cwd")).equals(real)
                                    && Files.readSymbolicLink(p.resolve("exe")).getFileName().toString()
                                            .startsWith("redis-server");
                        } catch (IOException e) {
                            return false;
                        }
                    })
                    .map(p -> Long.parseLong(p.getFileName().toString()))
                    .toList();
        }
    }
}
