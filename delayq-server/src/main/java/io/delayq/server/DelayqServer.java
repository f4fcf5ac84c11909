package io.delayq.server;

import io.delayq.Delayq;
import io.delayq.embedded.RedisServerProcess;
import io.delayq.server.http.ApiServer;
import io.delayq.server.http.HttpSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running {@code delayq serve}: the embedded Redis (when no Redis was configured), the delayq
 * client, and the HTTP server; started in that order and stopped in the reverse one, each step
 * logged.
 */
final class DelayqServer {
  private static final Logger log = LoggerFactory.getLogger(DelayqServer.class);
  /** How long requests in flight get to finish at shutdown. */
  static final Duration DRAIN = Duration.ofSeconds(10);
  private static final Pattern VERSION = Pattern.compile("v=(\\S+)");

  /** Partitions a queue created or configured over HTTP may have, unless {@code --max-partitions} says otherwise. */
  static final int DEFAULT_MAX_PARTITIONS = 64;
  /** The core's own limit (see {@code Delayq.queue(name, partitions)}), which {@code --max-partitions} cannot raise. */
  static final int PARTITIONS_LIMIT = 1024;

  /** What {@code serve} was asked for, already checked. */
  record Settings(String bind, int port, String redisUrl, String redisSource, String token, Path dataDir,
      int maxPartitions, HttpSettings http) {}

  private final RedisServerProcess embedded;
  private final Delayq delayq;
  private final ApiServer api;
  private final AtomicBoolean stopping = new AtomicBoolean();
  private final CountDownLatch stopped = new CountDownLatch(1);

  private DelayqServer(RedisServerProcess embedded, Delayq delayq, ApiServer api) {
    this.embedded = embedded;
    this.delayq = delayq;
    this.api = api;
    if (embedded != null) {
      ProcessHandle.of(embedded.pid()).ifPresent(redis -> redis.onExit().thenRun(() -> {
        if (!stopping.get()) {
          log.error("the embedded Redis (pid {}) exited on its own; calls fail with 503 until the server is"
              + " restarted. Its log: {}", redis.pid(), embedded.logFile());
        }
      }));
    }
  }

  /**
   * Starts everything and logs where it listens. On failure, stops what was already started.
   *
   * @throws Exception when Redis cannot be started or reached, or the address cannot be bound
   */
  static DelayqServer start(Settings settings) throws Exception {
    RedisServerProcess embedded = null;
    Delayq delayq = null;
    try {
      String redisUrl = settings.redisUrl();
      if (redisUrl == null) {
        embedded = startEmbeddedRedis(settings.dataDir());
        redisUrl = embedded.uri();
      } else {
        log.info("using Redis at {} (from {})", redact(redisUrl), settings.redisSource());
      }
      delayq = Delayq.connect(redisUrl);
      ApiServer api = ApiServer.start(delayq, settings.http(), settings.maxPartitions());
      DelayqServer server = new DelayqServer(embedded, delayq, api);
      log.info("delayq server listening on {} ({})", api.baseUrl(settings.bind()),
          api.requiresToken() ? "bearer token required" : "no token: every caller that reaches this address may use it");
      return server;
    } catch (Exception | Error e) {
      if (delayq != null) {
        delayq.close();
      }
      if (embedded != null) {
        embedded.stop();
      }
      throw e;
    }
  }

  private static RedisServerProcess startEmbeddedRedis(Path dataDir) {
    Path redisDir = dataDir.resolve("redis").toAbsolutePath().normalize();
    Path logFile = dataDir.resolve("redis.log").toAbsolutePath().normalize();
    Path binary = RedisServerProcess.bundledBinary();
    log.info("no Redis configured (--redis / REDIS_URL): starting the embedded redis-server {} ({}) with AOF on"
        + " (appendfsync everysec)", versionOf(binary), binary);
    RedisServerProcess redis =
        RedisServerProcess.builder()
            .binary(binary)
            .appendOnly(true)
            .appendFsync("everysec")
            .dataDir(redisDir)
            .logFile(logFile)
            .start();
    log.info("embedded Redis ready: pid {}, {}, data in {}, log in {}", redis.pid(), redis.uri(), redisDir, logFile);
    return redis;
  }

  private static String versionOf(Path binary) {
    try {
      Matcher m = VERSION.matcher(RedisServerProcess.version(binary));
      return m.find() ? m.group(1) : "(version unknown)";
    } catch (RuntimeException e) {
      return "(version unknown)";
    }
  }

  /** The URL with any user and password replaced by {@code ***}, for logs. */
  static String redact(String url) {
    return url.replaceAll("//[^@/,]*@", "//***@");
  }

  /**
   * Stops in order: the HTTP server (draining requests, waking waiting claims), the delayq client,
   * then the embedded Redis with {@code SHUTDOWN}, which flushes its AOF. Idempotent; callers after
   * the first wait until it is done.
   */
  void shutdown(String reason) {
    if (!stopping.compareAndSet(false, true)) {
      awaitStopped();
      return;
    }
    long start = System.nanoTime();
    try {
      log.info("shutdown: {}; stopping", reason);
      api.shutdown(DRAIN);
      delayq.close();
      log.info("shutdown: delayq client closed");
      if (embedded != null && embedded.isAlive()) {
        embedded.stop();
        log.info("shutdown: embedded Redis stopped with SHUTDOWN (AOF flushed in {})", embedded.dataDir());
      } else if (embedded != null) {
        log.warn("shutdown: the embedded Redis had already exited; see {}", embedded.logFile());
      }
      log.info("shutdown: done in {} ms", Duration.ofNanos(System.nanoTime() - start).toMillis());
    } catch (RuntimeException e) {
      log.error("shutdown: failed", e);
    } finally {
      stopped.countDown();
    }
  }

  /** Blocks until {@link #shutdown} has finished. */
  void awaitStopped() {
    boolean interrupted = false;
    while (true) {
      try {
        stopped.await();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
