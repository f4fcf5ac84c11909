package io.delayq.bench;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** What every scenario shares: the settings, the Redis under test, the log, and the results so far. */
final class Bench {
  /** Used to plan loads before a contender's bulk rate is known. */
  private static final double FALLBACK_BULK_RATE = 10_000;

  final BenchSettings settings;
  final BenchRedis redis;
  /** The delayq-server.jar the HTTP scenario runs, or {@code null} for {@link BenchServer#defaultJar()}. */
  final Path serverJar;
  final Results results = new Results();
  /** The broker of the RabbitMQ scenario, an {@code amqp://} URL. */
  String rabbitmqUrl = RabbitScenario.DEFAULT_URL;
  private final PrintStream out;
  private final long startNanos = System.nanoTime();
  private final Map<String, Double> bulkRates = new ConcurrentHashMap<>();
  private int queues;

  Bench(BenchSettings settings, BenchRedis redis, Path serverJar, PrintStream out) {
    this.settings = settings;
    this.redis = redis;
    this.serverJar = serverJar;
    this.out = out;
  }

  /** Prints a progress line, prefixed with the time since the run started. */
  void log(String format, Object... args) {
    long seconds = (System.nanoTime() - startNanos) / 1_000_000_000L;
    out.printf(Locale.ROOT, "[%2d:%02d] %s%n", seconds / 60, seconds % 60, String.format(Locale.ROOT, format, args));
    out.flush();
  }

  double elapsedSeconds() {
    return (System.nanoTime() - startNanos) / 1e9;
  }

  /** A queue name no earlier run used, so no contender sees another's leftovers even without a flush. */
  synchronized String freshQueue(String scenario) {
    return "bench-" + scenario + "-" + (++queues);
  }

  /** Empties Redis and lets the JVM collect the previous run's garbage before the next one starts. */
  void reset() {
    reset(redis);
  }

  /** As {@link #reset()}, for {@code target} (the single node or the cluster scenario's cluster). */
  void reset(RedisTarget target) {
    target.flushAll();
    System.gc();
  }

  void recordBulkRate(String contender, double jobsPerSecond) {
    if (jobsPerSecond > 0 && Double.isFinite(jobsPerSecond)) {
      bulkRates.put(contender, jobsPerSecond);
    }
  }

  /** The contender's bulk enqueue rate measured earlier in this run, else a cautious guess. */
  double bulkRate(String contender) {
    return bulkRates.getOrDefault(contender, FALLBACK_BULK_RATE);
  }
}
