package io.delayq.server;

import com.rabbitmq.client.ConnectionFactory;
import io.delayq.Delayq;
import io.delayq.server.forward.ForwardSupervisor;
import io.delayq.embedded.DataDirInUseException;
import io.delayq.embedded.RedisServerProcess;
import io.delayq.server.http.ApiServer;
import io.delayq.server.http.HttpSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running {@code delayq serve}: the embedded Redis (when no Redis was configured), the delayq
 * client, and the HTTP server; started in that order and stopped in the reverse one, each step
 * logged. The embedded Redis is locked down (see docs/EMBEDDED-REDIS.md) and restarted by an
 * {@link EmbeddedRedisSupervisor} when it dies; if it cannot be, the server stops with exit code 1.
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
  /** The file in the data dir that holds the embedded Redis's URL, password included (mode 0600). */
  static final String REDIS_URL_FILE = "redis-url";
  private static final Set<PosixFilePermission> GROUP_OR_OTHERS_WRITE =
      Set.of(PosixFilePermission.GROUP_WRITE, PosixFilePermission.OTHERS_WRITE);

  /**
   * What {@code serve} was asked for, already checked.
   *
   * @param redisPort the embedded Redis's port; 0 for a free one
   */
  record Settings(String bind, int port, String redisUrl, String redisSource, String token, Path dataDir,
      int redisPort, int maxPartitions, HttpSettings http, String rabbitmqUrl) {}

  private final String bind;
  private final RedisServerProcess embedded;
  private final Path redisUrlFile;
  private final Delayq delayq;
  private final ApiServer api;
  private final ForwardSupervisor forwarding;
  private final EmbeddedRedisSupervisor supervisor;
  private final AtomicBoolean stopping = new AtomicBoolean();
  private final CountDownLatch stopped = new CountDownLatch(1);
  private volatile int exitCode;

  private DelayqServer(RedisServerProcess embedded, Path redisUrlFile, Delayq delayq, ApiServer api,
      ForwardSupervisor forwarding, String bind) {
    this.bind = bind;
    this.forwarding = forwarding;
    this.embedded = embedded;
    this.redisUrlFile = redisUrlFile;
    this.delayq = delayq;
    this.api = api;
    this.supervisor = embedded == null ? null
        : new EmbeddedRedisSupervisor(embedded, this::giveUp, System::nanoTime);
    if (supervisor != null) {
      supervisor.start();
    }
  }

  /**
   * Starts everything ({@link #announceListening} then says where it listens). On failure, stops
   * what was already started.
   *
   * @throws Exception when Redis cannot be started or reached, or the address cannot be bound
   */
  static DelayqServer start(Settings settings) throws Exception {
    RedisServerProcess embedded = null;
    Path redisUrlFile = null;
    Delayq delayq = null;
    ForwardSupervisor forwarding = null;
    try {
      String redisUrl = settings.redisUrl();
      if (redisUrl == null) {
        Path dataDir = prepareDataDir(settings.dataDir());
        embedded = startEmbeddedRedis(dataDir, settings.redisPort());
        redisUrl = embedded.uriWithPassword();
        redisUrlFile = writeRedisUrl(dataDir, redisUrl);
        log.info("the embedded Redis needs a password; its URL, password included, is in {} (readable by this"
            + " user only), for other clients on this machine", redisUrlFile);
      } else {
        log.info("using Redis at {} (from {})", redact(redisUrl), settings.redisSource());
      }
      delayq = Delayq.connect(redisUrl);
      ConnectionFactory rabbit = null;
      if (settings.rabbitmqUrl() != null) {
        rabbit = rabbitConnectionFactory(settings.rabbitmqUrl());
        log.info("queues forwarded to RabbitMQ use {}", redactAmqp(settings.rabbitmqUrl()));
      }
      forwarding = new ForwardSupervisor(delayq, rabbit, "--rabbitmq", ForwardSupervisor.DEFAULT_REFRESH).start();
      ApiServer api = ApiServer.start(delayq, settings.http(), settings.maxPartitions(), forwarding);
      return new DelayqServer(embedded, redisUrlFile, delayq, api, forwarding, settings.bind());
    } catch (Exception | Error e) {
      if (forwarding != null) {
        forwarding.close();
      }
      if (delayq != null) {
        delayq.close();
      }
      if (embedded != null) {
        embedded.close();
      }
      deleteQuietly(redisUrlFile);
      throw e;
    }
  }

  /**
   * The data dir ({@code --data-dir}), created with mode 0700 when missing. An existing one that
   * group or others may write is refused: they could swap {@code redis/} or plant a link where
   * Redis writes its log.
   */
  static Path prepareDataDir(Path dataDir) throws IOException {
    Path dir = dataDir.toAbsolutePath().normalize();
    boolean posix = dir.getFileSystem().supportedFileAttributeViews().contains("posix");
    if (!Files.exists(dir)) {
      if (dir.getParent() != null) {
        Files.createDirectories(dir.getParent());
      }
      if (posix) {
        Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      } else {
        Files.createDirectory(dir);
      }
      return dir;
    }
    if (!Files.isDirectory(dir)) {
      throw new IllegalStateException("--data-dir (DELAYQ_DATA_DIR) " + dir + " is not a directory");
    }
    if (posix) {
      Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(dir);
      if (permissions.stream().anyMatch(GROUP_OR_OTHERS_WRITE::contains)) {
        throw new IllegalStateException("refusing --data-dir (DELAYQ_DATA_DIR) " + dir + ": its mode is "
            + PosixFilePermissions.toString(permissions) + ", so other users could replace the Redis data or log"
            + " in it. Run `chmod go-w " + dir + "` (or 700), or choose another --data-dir");
      }
    }
    return dir;
  }

  private static RedisServerProcess startEmbeddedRedis(Path dataDir, int port) {
    Path redisDir = dataDir.resolve("redis");
    Path logFile = dataDir.resolve("redis.log");
    Path binary = RedisServerProcess.bundledBinary();
    log.info("no Redis configured (--redis / REDIS_URL): starting the embedded redis-server {} ({}) with AOF on"
        + " (appendfsync everysec), a random password, CONFIG, DEBUG and MODULE disabled, on {}",
        versionOf(binary), binary, port == 0 ? "a free port of 127.0.0.1" : "127.0.0.1:" + port);
    RedisServerProcess.Builder builder =
        RedisServerProcess.builder()
            .binary(binary)
            .lockedDown(true)
            .appendOnly(true)
            .appendFsync("everysec")
            .dataDir(redisDir)
            .logFile(logFile);
    if (port != 0) {
      builder.port(port);
    }
    RedisServerProcess redis = builder.build();
    try {
      redis.start();
    } catch (DataDirInUseException e) {
      redis.close();
      throw new IllegalStateException("the data dir " + dataDir + " (--data-dir, DELAYQ_DATA_DIR) is in use by "
          + e.holderPid().stream().mapToObj(pid -> "process " + pid).findFirst().orElse("another process")
          + " (another delayq serve or demo?), which holds " + redisDir.resolve("redis.lock") + ". Stop it, or give"
          + " this server another --data-dir", e);
    } catch (RuntimeException e) {
      redis.close();
      throw e;
    }
    log.info("embedded Redis ready: pid {}, {}, data in {}, log in {}",
        redis.pid(), redact(redis.uriWithPassword()), redisDir, logFile);
    return redis;
  }

  /** Writes {@code url} to {@code redis-url} in the data dir: a 0600 temp file, renamed into place. */
  private static Path writeRedisUrl(Path dataDir, String url) {
    Path file = dataDir.resolve(REDIS_URL_FILE);
    try {
      // why: createTempFile makes the file 0600 before the secret is in it
      Path tmp = Files.createTempFile(dataDir, "." + REDIS_URL_FILE, ".tmp");
      try {
        Files.writeString(tmp, url + "\n", StandardCharsets.UTF_8);
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } finally {
        Files.deleteIfExists(tmp);
      }
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }

  private static void deleteQuietly(Path file) {
    if (file == null) {
      return;
    }
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      log.warn("cannot delete {}: {}", file, e.toString());
    }
  }

  private static String versionOf(Path binary) {
    try {
      Matcher m = VERSION.matcher(RedisServerProcess.version(binary));
      return m.find() ? m.group(1) : "(version unknown)";
    } catch (RuntimeException e) {
      return "(version unknown)";
    }
  }

  /**
   * The connection settings of {@code --rabbitmq}; a URL amqp-client cannot read is refused with
   * what to write instead.
   */
  static ConnectionFactory rabbitConnectionFactory(String url) {
    ConnectionFactory factory = new ConnectionFactory();
    try {
      factory.setUri(url);
    } catch (Exception e) {
      throw new ServeCommand.UsageException("--rabbitmq (DELAYQ_RABBITMQ_URL) '" + redactAmqp(url) + "' is not a"
          + " RabbitMQ URL (" + e.getMessage() + "); write amqp://user:password@host:5672/vhost, or amqps:// for TLS");
    }
    // why: amqp-client takes any port here and fails only on connecting, so a typo would leave every
    // forwarded queue RETRYING for ever instead of stopping the start
    int port = factory.getPort();
    if (port < 1 || port > 65535) {
      throw new ServeCommand.UsageException("--rabbitmq (DELAYQ_RABBITMQ_URL) '" + redactAmqp(url) + "' names port "
          + port + "; a port is between 1 and 65535 (5672 for amqp://, 5671 for amqps://)");
    }
    return factory;
  }

  /** An AMQP URL without its password, for logs. */
  static String redactAmqp(String url) {
    return url.replaceAll("(//[^:@/]*):[^@/]*@", "$1:***@");
  }

  /** The URL with any user and password replaced by {@code ***}, for logs. */
  static String redact(String url) {
    return url.replaceAll("//[^@/,]*@", "//***@");
  }

  /**
   * Logs where the server listens: the line scripts and tests wait for. why: called once the
   * SIGTERM handler is installed, so that a SIGTERM sent on seeing it always gets the ordered
   * shutdown (before, one sent at once could hit the JVM's default handler: exit code 143).
   */
  void announceListening() {
    log.info("delayq server listening on {} ({})", api.baseUrl(bind),
        api.requiresToken() ? "bearer token required" : "no token: every caller that reaches this address may use it");
  }

  /** Called by the supervisor when the embedded Redis cannot be brought back: stop, exit code 1. */
  private void giveUp(String reason) {
    exitCode = ServeCommand.EXIT_FAILED;
    Thread stopper = new Thread(() -> shutdown(reason), "delayq-shutdown");
    stopper.start();
  }

  /** 0 after a requested shutdown; {@link ServeCommand#EXIT_FAILED} when the server stopped itself. */
  int exitCode() {
    return exitCode;
  }

  /**
   * Stops in order: the HTTP server (draining requests, waking waiting claims), the delayq client,
   * then the embedded Redis with {@code SHUTDOWN}, which flushes its AOF, releasing its data dir.
   * Idempotent; callers after the first wait until it is done.
   */
  void shutdown(String reason) {
    if (!stopping.compareAndSet(false, true)) {
      awaitStopped();
      return;
    }
    long start = System.nanoTime();
    try {
      log.info("shutdown: {}; stopping", reason);
      if (supervisor != null) {
        supervisor.close();
      }
      api.shutdown(DRAIN);
      // why: before the client, so that each forwarder hands back what its target did not confirm
      forwarding.close();
      log.info("shutdown: forwarders stopped");
      delayq.close();
      log.info("shutdown: delayq client closed");
      if (embedded != null && embedded.isAlive()) {
        embedded.close();
        log.info("shutdown: embedded Redis stopped with SHUTDOWN (AOF flushed in {})", embedded.dataDir());
      } else if (embedded != null) {
        embedded.close();
        log.warn("shutdown: the embedded Redis had already exited; see {}", embedded.logFile());
      }
      deleteQuietly(redisUrlFile);
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
