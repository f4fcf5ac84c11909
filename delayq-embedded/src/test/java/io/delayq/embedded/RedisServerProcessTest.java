package io.delayq.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RedisServerProcessTest {

    @Test
    void startsTheBundledServerWhichAnswersPing() {
        try (RedisServerProcess redis = RedisServerProcess.builder().start()) {
            assertThat(redis.isAlive()).isTrue();
            assertThat(redis.uri()).isEqualTo("redis://127.0.0.1:" + redis.port());
            assertThat(RawRedis.call(redis.port(), "PING")).isEqualTo("+PONG");
            assertThat(redis.version()).startsWith("Redis server v=6.2");
            assertThat(redis.dataDir().resolve("redis.conf")).content()
                    .contains("bind 127.0.0.1", "save \"\"", "daemonize no", "appendonly no");
        }
    }

    @Test
    void killSigkillsTheProcess() {
        try (RedisServerProcess redis = RedisServerProcess.builder().start()) {
            long pid = redis.pid();

            redis.kill();

            assertThat(redis.isAlive()).isFalse();
            await().atMost(Duration.ofSeconds(5)).until(() -> !processExists(pid));
            assertThatThrownBy(() -> RawRedis.call(redis.port(), "PING")).hasRootCauseInstanceOf(IOException.class);
        }
    }

    @Test
    void writeAcknowledgedWithAppendfsyncAlwaysSurvivesSigkillAndRestart() {
        try (RedisServerProcess redis = RedisServerProcess.builder().appendOnly(true).appendFsync("always").start()) {
            int port = redis.port();
            long firstPid = redis.pid();
            assertThat(RawRedis.call(port, "SET", "k", "v")).isEqualTo("+OK");

            redis.kill();
            redis.restart();

            assertThat(redis.pid()).isNotEqualTo(firstPid);
            assertThat(redis.port()).isEqualTo(port);
            assertThat(RawRedis.call(port, "GET", "k")).isEqualTo("v");
            assertThat(redis.dataDir().resolve("dump.rdb")).as("data came from the AOF, not a snapshot").doesNotExist();
        }
    }

    @Test
    void stopShutsDownGracefullyAndRestartKeepsTheData() {
        try (RedisServerProcess redis = RedisServerProcess.builder().appendOnly(true).start()) {
            long pid = redis.pid();
            RawRedis.call(redis.port(), "SET", "k", "v");

            redis.stop();

            assertThat(processExists(pid)).isFalse();
            assertThat(redis.logFile()).content().contains("Redis is now ready to exit");
            redis.restart();
            assertThat(RawRedis.call(redis.port(), "GET", "k")).isEqualTo("v");
        }
    }

    @Test
    void closeDeletesTheTempDataDirAndIsIdempotent() {
        RedisServerProcess redis = RedisServerProcess.builder().start();
        long pid = redis.pid();
        Path dataDir = redis.dataDir();
        assertThat(dataDir).isDirectory();

        redis.close();
        redis.close();

        assertThat(dataDir).doesNotExist();
        assertThat(processExists(pid)).isFalse();
        assertThatThrownBy(redis::start).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void closeKeepsADataDirGivenByTheCaller(@TempDir Path dir) {
        try (RedisServerProcess redis = RedisServerProcess.builder().dataDir(dir).start()) {
            assertThat(redis.dataDir()).isEqualTo(dir.toAbsolutePath());
        }
        assertThat(dir.resolve("redis.log")).exists();
    }

    @Test
    void extraSettingsReachTheServerAndRequirepassIsUsedForReadinessAndShutdown() {
        try (RedisServerProcess redis = RedisServerProcess.builder()
                .setting("maxmemory-policy", "allkeys-lru")
                .setting("requirepass", "s3cret pass")
                .start()) {
            try (RawRedis client = new RawRedis(redis.port())) {
                assertThat((String) client.send("PING")).startsWith("-NOAUTH");
                assertThat(client.send("AUTH", "s3cret pass")).isEqualTo("+OK");
                assertThat(client.send("CONFIG", "GET", "maxmemory-policy"))
                        .isEqualTo(List.of("maxmemory-policy", "allkeys-lru"));
            }
            long pid = redis.pid();
            redis.stop();
            assertThat(processExists(pid)).isFalse();
            assertThat(redis.logFile()).content().contains("Redis is now ready to exit");
        }
    }

    @Test
    void startFailureReportsTheTailOfTheLog() {
        assertThatThrownBy(() -> RedisServerProcess.builder().setting("maxmemory-policy", "bogus").start())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("exited with code")
                .hasMessageContaining("maxmemory-policy");
    }

    @Test
    void anExplicitPortInUseIsReportedNotRetried() throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                RedisServerProcess redis = RedisServerProcess.builder().port(taken.getLocalPort()).build()) {
            assertThatThrownBy(redis::start)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("Address already in use");
            assertThat(redis.port()).isEqualTo(taken.getLocalPort());
        }
    }

    @Test
    void clusterPortsLeaveRoomForAFreeBusPort() {
        for (int i = 0; i < 20; i++) {
            int port = Ports.freeClusterPort();
            assertThat(port).isBetween(1, 55535);
            assertThat(Ports.isFree(port + 10000)).isTrue();
        }
    }

    @Test
    void clusterModeServerListensOnPortPlus10000() {
        try (RedisServerProcess redis = RedisServerProcess.builder().clusterMode(true).start()) {
            assertThat(redis.port()).isLessThanOrEqualTo(55535);
            assertThat((String) RawRedis.call(redis.port(), "INFO", "cluster")).contains("cluster_enabled:1");
            assertThat(accepts(redis.port() + 10000)).isTrue();
        }
        assertThatThrownBy(() -> RedisServerProcess.builder().clusterMode(true).port(60000).build())
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void unsupportedPlatformIsAClearError() {
        assertThat(BundledBinary.resourceName("Linux", "aarch64")).isEqualTo("redis-server-6.2.7-linux-arm64");
        assertThat(BundledBinary.resourceName("Mac OS X", "x86_64")).isEqualTo("redis-server-6.2.6-v5-darwin-amd64");
        assertThatThrownBy(() -> BundledBinary.resourceName("Windows 11", "amd64"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("os.name=Windows 11")
                .hasMessageContaining("binary(path)");
    }

    @Test
    void bundledBinaryIsExtractedOncePerJvmAndCacheDir(@TempDir Path cache) {
        Path binary = RedisServerProcess.bundledBinary(cache);

        assertThat(binary).isExecutable().hasParent(cache.toAbsolutePath());
        assertThat(RedisServerProcess.bundledBinary(cache)).isSameAs(binary);
        assertThat(RedisServerProcess.version(binary)).startsWith("Redis server v=");
        assertThat(cache.toFile().list()).as("no temp files left behind")
                .containsExactly(binary.getFileName().toString());
    }

    @Test
    void invalidSettingsAreRejected() {
        RedisServerProcess.Builder builder = RedisServerProcess.builder();
        assertThatThrownBy(() -> builder.appendFsync("sometimes")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.setting("port", "1")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.setting("x", "a\nport 1")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aSecondServerOnAnOccupiedPortFailsInsteadOfUsingTheFirst() {
        try (RedisServerProcess first = RedisServerProcess.builder().start();
                RedisServerProcess second = RedisServerProcess.builder().port(first.port()).build()) {
            assertThatThrownBy(second::start).isInstanceOf(IllegalStateException.class);
            assertThat(second.isAlive()).isFalse();
            assertThat(first.isAlive()).isTrue();
        }
    }

    @Test
    void shutdownHookKillsServersAndDeletesTempDirsLeftByAnExitingJvm() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process jvm = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), LeakyMain.class.getName())
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        List<String> output = new String(jvm.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        assertThat(jvm.waitFor()).isZero();
        long pid = Long.parseLong(output.get(output.size() - 2));
        Path dataDir = Path.of(output.get(output.size() - 1));

        await().atMost(Duration.ofSeconds(5)).until(() -> !processExists(pid));
        assertThat(dataDir).doesNotExist();
    }

    private static boolean processExists(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    private static boolean accepts(int port) {
        try (Socket ignored = new Socket(InetAddress.getLoopbackAddress(), port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
