package io.delayq.server;

import io.delayq.embedded.RedisServerProcess;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Restarts the embedded Redis when it exits on its own (crashed, killed, out of memory), on the same port, password
 * and data dir, so the delayq client reconnects by itself and the AOF brings the jobs back. It waits 0.5 s before the
 * first try and doubles that up to 8 s; after {@link #MAX_RESTARTS} restarts without a minute of uptime between them,
 * it gives up and tells the server to exit with an error, rather than leave it answering 503 for ever.
 */
final class EmbeddedRedisSupervisor implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(EmbeddedRedisSupervisor.class);

  static final int MAX_RESTARTS = 5;
  static final Duration FIRST_BACKOFF = Duration.ofMillis(500);
  static final Duration MAX_BACKOFF = Duration.ofSeconds(8);
  /** Up this long after a restart, Redis counts as healthy again and the next exit starts a fresh series. */
  static final Duration STABLE_AFTER = Duration.ofMinutes(1);

  private final RedisServerProcess redis;
  private final Consumer<String> giveUp;
  private final LongSupplier nanoTime;
  private final ScheduledExecutorService executor;

  private volatile boolean closed;
  /** Restarts since Redis was last up for {@link #STABLE_AFTER}. */
  private int restarts;
  private long lastStartNanos;

  /**
   * @param giveUp called once, with the reason, when Redis cannot be brought back
   */
  EmbeddedRedisSupervisor(RedisServerProcess redis, Consumer<String> giveUp, LongSupplier nanoTime) {
    this.redis = redis;
    this.giveUp = giveUp;
    this.nanoTime = nanoTime;
    this.executor = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread thread = new Thread(runnable, "delayq-redis-supervisor");
      thread.setDaemon(true);
      return thread;
    });
  }

  /** Starts watching the running server. */
  synchronized void start() {
    lastStartNanos = nanoTime.getAsLong();
    watch(redis.pid());
  }

  /** The pause before restart number {@code n} (1-based): 0.5 s, 1 s, 2 s, 4 s, 8 s. */
  static Duration backoff(int n) {
    Duration pause = FIRST_BACKOFF.multipliedBy(1L << Math.min(n - 1, 20));
    return pause.compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : pause;
  }

  private void watch(long pid) {
    ProcessHandle.of(pid).ifPresentOrElse(
        handle -> handle.onExit().thenRun(() -> exited(pid)),
        () -> exited(pid));
  }

  private synchronized void exited(long pid) {
    if (closed) {
      return;
    }
    if (nanoTime.getAsLong() - lastStartNanos >= STABLE_AFTER.toNanos()) {
      restarts = 0;
    }
    int attempt = restarts + 1;
    if (attempt > MAX_RESTARTS) {
      fail("the embedded Redis (pid " + pid + ") exited again after " + MAX_RESTARTS + " restarts within "
          + STABLE_AFTER.toSeconds() + " s of each other");
      return;
    }
    Duration pause = backoff(attempt);
    log.error("the embedded Redis (pid {}) exited on its own; restarting it in {} ms (attempt {} of {}) with the same"
        + " port, password and data; calls fail with 503 until it is back. Its log: {}",
        pid, pause.toMillis(), attempt, MAX_RESTARTS, redis.logFile());
    schedule(attempt, pause);
  }

  private void schedule(int attempt, Duration pause) {
    executor.schedule(() -> restart(attempt), pause.toNanos(), TimeUnit.NANOSECONDS);
  }

  private synchronized void restart(int attempt) {
    if (closed) {
      return;
    }
    restarts = attempt;
    try {
      redis.start();
    } catch (RuntimeException e) {
      if (attempt >= MAX_RESTARTS) {
        fail("restart " + attempt + " of " + MAX_RESTARTS + " failed: " + e.getMessage());
        return;
      }
      Duration pause = backoff(attempt + 1);
      log.error("restart {} of {} of the embedded Redis failed; trying again in {} ms: {}",
          attempt, MAX_RESTARTS, pause.toMillis(), e.getMessage());
      schedule(attempt + 1, pause);
      return;
    }
    lastStartNanos = nanoTime.getAsLong();
    log.info("the embedded Redis is back after restart {} of {}: pid {}, same port, password and data dir {}",
        attempt, MAX_RESTARTS, redis.pid(), redis.dataDir());
    watch(redis.pid());
  }

  private void fail(String reason) {
    closed = true;
    executor.shutdown();
    log.error("{}; giving up on it. The server stops and exits with code {} rather than answer 503 for ever."
        + " Its log: {}", reason, ServeCommand.EXIT_FAILED, redis.logFile());
    giveUp.accept("the embedded Redis could not be restarted");
  }

  /** Stops supervising: an exit after this is the server's own doing. Idempotent. */
  @Override
  public void close() {
    closed = true;
    executor.shutdownNow();
  }
}
