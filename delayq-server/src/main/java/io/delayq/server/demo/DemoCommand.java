package io.delayq.server.demo;

import io.delayq.DelayqException;
import io.delayq.embedded.DataDirInUseException;
import io.delayq.embedded.RedisServerProcess;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code delayq demo}: runs the {@link OrderCancellationDemo} once.
 *
 * <pre>
 * java -jar delayq-server.jar demo [--redis URL] [--jobs N] [--seconds S] [--data-dir PATH]
 * </pre>
 *
 * <p>The Redis is {@code --redis}, else the environment variable {@code REDIS_URL}. With neither,
 * the demo starts a real Redis of its own with the AOF on, locked down as {@code serve}'s is (a
 * random password, CONFIG/DEBUG/MODULE disabled, private files), keeping its data in {@code
 * <data-dir>/redis} after the run, and stops it at the end. A {@code serve} or another demo
 * running on the same data dir makes it refuse to start, naming that process. The exit code is 0 when every order was
 * delivered exactly once and none early, 1 when not (or when the run failed), 2 for bad arguments.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
      "Runs the demo: orders that cancel themselves when unpaid.",
      "Schedules --jobs jobs due over the next --seconds, consumes them with two independent clients, and checks"
          + " that every one was delivered exactly once and never early (exit code 0; 1 when not).",
      "With no Redis given, starts an embedded redis-server with the AOF on and keeps its data in --data-dir."
    },
    footer = {
      "",
      "Examples:",
      "  java -jar delayq-server.jar demo",
      "  java -jar delayq-server.jar demo --jobs 100000 --seconds 30",
      "  REDIS_URL=redis://127.0.0.1:6379 java -jar delayq-server.jar demo"
    })
public final class DemoCommand implements Callable<Integer> {
  private static final Pattern VERSION = Pattern.compile("v=(\\S+)");

  @Spec CommandSpec spec;

  @Option(names = "--redis", paramLabel = "URL", defaultValue = "${env:REDIS_URL}",
      description = "The Redis to use (env REDIS_URL); unset: an embedded one.")
  String redisUrl;

  private int jobs = 5_000;
  private int seconds = 5;

  @Option(names = "--data-dir", paramLabel = "PATH", defaultValue = "${env:DELAYQ_DATA_DIR:-./data}",
      description = "Where the embedded Redis keeps its data, under PATH/redis (env DELAYQ_DATA_DIR, default ${DEFAULT-VALUE}).")
  Path dataDir;

  @Option(names = "--jobs", paramLabel = "N", defaultValue = "5000",
      description = "Orders to schedule, 1 to 10000000 (default ${DEFAULT-VALUE}).")
  void jobs(int jobs) {
    this.jobs = inRange("--jobs", jobs, 1, 10_000_000);
  }

  @Option(names = "--seconds", paramLabel = "S", defaultValue = "5",
      description = "Spread their due times over the next S seconds, 0 to 3600 (default ${DEFAULT-VALUE}).")
  void seconds(int seconds) {
    this.seconds = inRange("--seconds", seconds, 0, 3_600);
  }

  private int inRange(String option, int value, int min, int max) {
    if (value < min || value > max) {
      throw new ParameterException(spec.commandLine(),
          option + " must be a whole number from " + min + " to " + max + "; got " + value);
    }
    return value;
  }

  @Override
  public Integer call() {
    PrintStream out = System.out;
    try {
      return run(out).success() ? 0 : 1;
    } catch (DataDirInUseException e) {
      System.err.println("delayq demo: failed: the data dir " + dataDir.toAbsolutePath().normalize()
          + " (--data-dir, DELAYQ_DATA_DIR) is in use by "
          + e.holderPid().stream().mapToObj(pid -> "process " + pid).findFirst().orElse("another process")
          + " (a delayq serve or another demo?); stop it, or give the demo another --data-dir");
      return 1;
    } catch (DelayqException | IllegalStateException | UncheckedIOException e) {
      System.err.println("delayq demo: failed: " + e.getMessage());
      return 1;
    }
  }

  /**
   * Runs the demo once on the given Redis, else on an embedded one that is stopped before this
   * returns; prints its lines to {@code out}.
   */
  OrderCancellationDemo.Result run(PrintStream out) {
    if (redisUrl != null && !redisUrl.isBlank()) {
      out.printf("delayq demo: using Redis at %s%n", redact(redisUrl));
      return new OrderCancellationDemo(redisUrl, jobs, seconds, out).run();
    }
    Path redisDir = dataDir.resolve("redis");
    RedisServerProcess redis =
        RedisServerProcess.builder()
            .lockedDown(true)
            .appendOnly(true)
            .appendFsync("everysec")
            .dataDir(redisDir)
            .build();
    // why: on Ctrl-C, SHUTDOWN lets Redis fsync its AOF rather than lose the last second of writes
    Thread stopRedis = new Thread(redis::stop, "delayq-demo-stop-redis");
    Runtime.getRuntime().addShutdownHook(stopRedis);
    try {
      redis.start();
      out.printf("delayq demo: no Redis given (--redis, REDIS_URL); started embedded Redis %s at %s"
          + " (AOF on, data in %s)%n", versionOf(redis), redact(redis.uriWithPassword()), redisDir);
      return new OrderCancellationDemo(redis.uriWithPassword(), jobs, seconds, out).run();
    } finally {
      redis.close();
      try {
        Runtime.getRuntime().removeShutdownHook(stopRedis);
      } catch (IllegalStateException shuttingDown) {
        // the hook is running or has run; nothing left to undo
      }
    }
  }

  private static String versionOf(RedisServerProcess redis) {
    Matcher m = VERSION.matcher(redis.version());
    return m.find() ? m.group(1) : "(unknown version)";
  }

  /** The URL without any password, for printing. */
  static String redact(String url) {
    return url.replaceAll("//[^@/,]*@", "//***@");
  }
}
