package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.delayq.embedded.RedisServerProcess;
import io.delayq.testing.TestRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Connecting: URLs, ACL users, TLS, an unreachable Redis, and a Redis that may evict keys. */
class ConnectionIT {

  @Test
  void malformedUrlsAreRefusedWithTheExpectedForm() {
    assertThatThrownBy(() -> Delayq.connect(null)).isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("redisUrl: is missing");
    assertThatThrownBy(() -> Delayq.connect("http://localhost:6379")).isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("must start with redis:// or rediss://");
    // The password never appears in the message.
    assertThatThrownBy(() -> Delayq.connect("tcp://user:secret@localhost")).isInstanceOf(InvalidRequestException.class)
        .hasMessageNotContaining("secret");
  }

  @Test
  void unreachableRedisFailsFastWithAClearMessage() throws IOException {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    long t0 = System.nanoTime();
    assertThatThrownBy(() -> Delayq.connect("redis://127.0.0.1:" + closedPort))
        .isInstanceOf(RedisUnavailableException.class)
        .hasMessageContaining("cannot connect to Redis at redis://127.0.0.1:" + closedPort)
        .hasMessageContaining("Check that Redis is running");
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(10));
  }

  @Test
  void aclUserAndPasswordFromTheUrl() {
    try (RedisServerProcess redis = RedisServerProcess.builder().start()) {
      RedisClient admin = RedisClient.create(redis.uri());
      try (StatefulRedisConnection<String, String> c = admin.connect()) {
        c.sync().aclSetuser("worker", io.lettuce.core.AclSetuserArgs.Builder.on().addPassword("s3cret").allKeys().allChannels().allCommands());
      } finally {
        admin.shutdown();
      }
      String url = "redis://worker:s3cret@127.0.0.1:" + redis.port();
      try (Delayq delayq = Delayq.connect(url)) {
        JobQueue queue = delayq.queue("acl");
        queue.schedule(JobRequest.of("x").withId("a1"));
        assertThat(queue.pull().claim(1, Duration.ofSeconds(5))).hasSize(1);
      }
      assertThatThrownBy(() -> Delayq.connect("redis://worker:wrong@127.0.0.1:" + redis.port()))
          .isInstanceOf(RedisUnavailableException.class)
          .hasMessageContaining("user and password");
    }
  }

  @Test
  void tlsWithRediss(@TempDir Path dir) throws Exception {
    assumeTrue(opensslAvailable(), "openssl is not on PATH, so no test certificate can be made; TLS not tested here");
    Process gen = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
        "-keyout", dir.resolve("key.pem").toString(), "-out", dir.resolve("cert.pem").toString(),
        "-days", "1", "-subj", "/CN=localhost").redirectErrorStream(true).start();
    assertThat(gen.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(gen.exitValue()).isZero();
    int tlsPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      tlsPort = socket.getLocalPort();
    }
    try (RedisServerProcess redis = RedisServerProcess.builder()
        .setting("tls-port", Integer.toString(tlsPort))
        .setting("tls-cert-file", dir.resolve("cert.pem").toString())
        .setting("tls-key-file", dir.resolve("key.pem").toString())
        .setting("tls-ca-cert-file", dir.resolve("cert.pem").toString())
        .setting("tls-auth-clients", "no")
        .start()) {
      // The test's self-signed certificate is not in the JDK's trust store, hence verifyPeer=NONE.
      try (Delayq delayq = Delayq.connect("rediss://127.0.0.1:" + tlsPort + "?verifyPeer=NONE")) {
        JobQueue queue = delayq.queue("tls");
        queue.schedule(JobRequest.of("secret payload").withId("t1"));
        assertThat(queue.pull().claim(1, Duration.ofSeconds(5))).extracting(LeasedJob::payloadAsString).containsExactly("secret payload");
      }
      // Plain text to the TLS port does not pass for a connection.
      assertThatThrownBy(() -> Delayq.builder().redisUrl("redis://127.0.0.1:" + tlsPort).commandTimeout(Duration.ofSeconds(2)).build())
          .isInstanceOf(RedisUnavailableException.class);
    }
  }

  @Test
  void evictingRedisIsWarnedAboutOrRefused() {
    try (RedisServerProcess redis = RedisServerProcess.builder().setting("maxmemory-policy", "allkeys-lru").start()) {
      try (Delayq warned = Delayq.connect(redis.uri())) {
        assertThat(warned.isClosed()).isFalse();
      }
      assertThatThrownBy(() -> Delayq.builder().redisUrl(redis.uri()).refuseEvictingRedis(true).build())
          .isInstanceOf(QueueConfigurationException.class)
          .hasMessageContaining("maxmemory-policy 'allkeys-lru'")
          .hasMessageContaining("noeviction");
    }
    try (Delayq fine = Delayq.builder().redisUrl(TestRedis.url()).build()) {
      assertThat(fine.isClosed()).isFalse();
    }
  }

  private static boolean opensslAvailable() {
    try {
      Process p = new ProcessBuilder("openssl", "version").redirectErrorStream(true).start();
      return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (IOException | InterruptedException e) {
      return false;
    }
  }
}
