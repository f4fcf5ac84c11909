package io.delayq.demo;

import io.delayq.embedded.RedisServerProcess;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs the {@link OrderCancellationDemo} from the command line.
 *
 * <pre>
 * java -jar delayq-demo.jar [--redis=URL] [--jobs=N] [--seconds=S] [--data-dir=PATH]
 * </pre>
 *
 * <p>The Redis is {@code --redis}, else the system property {@code redis.url}, else the
 * environment variable {@code REDIS_URL}. With none of them, the demo starts a real Redis of its
 * own with the AOF on, keeping its data in {@code <data-dir>/redis} after the run, and stops it at
 * the end. The exit code is 0 when every order was delivered exactly once and none early, 1 when
 * not (or when the run failed), 2 for bad arguments.
 */
public final class DemoMain {
  static final String USAGE =
      "usage: java -jar delayq-demo.jar [--redis=URL] [--jobs=N] [--seconds=S] [--data-dir=PATH]\n"
          + "  --redis=URL      the Redis to use (else -Dredis.url, else env REDIS_URL, else an embedded one)\n"
          + "  --jobs=N         orders to schedule (default 5000)\n"
          + "  --seconds=S      spread their due times over the next S seconds (default 5)\n"
          + "  --data-dir=PATH  where the embedded Redis keeps its data, under PATH/redis (default ./data)";

  private static final Pattern VERSION = Pattern.compile("v=(\\S+)");

  private DemoMain() {}

  public static void main(String[] args) {
    int code;
    try {
      if (Options.wantsHelp(args)) {
        System.out.println(USAGE);
        code = 0;
      } else {
        code = run(args, System.getenv(), System.out).success() ? 0 : 1;
      }
    } catch (UsageException e) {
      System.err.println("delayq demo: " + e.getMessage());
      System.err.println(USAGE);
      code = 2;
    } catch (RuntimeException e) {
      System.err.println("delayq demo failed: " + e);
      code = 1;
    }
    System.exit(code);
  }

  /**
   * Runs the demo once, on the Redis the arguments, the system property {@code redis.url} or
   * {@code env} name, else on an embedded one that is stopped before this returns.
   *
   * @param env the environment to read {@code REDIS_URL} from
   * @param out where the demo's lines are printed
   * @throws UsageException when an argument is not understood
   */
  public static OrderCancellationDemo.Result run(String[] args, Map<String, String> env, PrintStream out) {
    Options options = Options.parse(args, System.getProperty("redis.url"), env.get("REDIS_URL"));
    if (options.redisUrl() != null) {
      out.printf("delayq demo: using Redis at %s (from %s)%n", redact(options.redisUrl()), options.redisSource());
      return new OrderCancellationDemo(options.redisUrl(), options.jobs(), options.seconds(), out).run();
    }
    Path redisDir = options.dataDir().resolve("redis");
    RedisServerProcess redis =
        RedisServerProcess.builder().appendOnly(true).appendFsync("everysec").dataDir(redisDir).build();
    // why: on Ctrl-C, SHUTDOWN lets Redis fsync its AOF rather than lose the last second of writes
    Thread stopRedis = new Thread(redis::stop, "delayq-demo-stop-redis");
    Runtime.getRuntime().addShutdownHook(stopRedis);
    try {
      redis.start();
      out.printf("delayq demo: no REDIS_URL set; started embedded Redis %s at %s (AOF on, data in %s)%n",
          versionOf(redis), redis.uri(), redisDir);
      return new OrderCancellationDemo(redis.uri(), options.jobs(), options.seconds(), out).run();
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
    return url.replaceAll("//[^@/]*@", "//***@");
  }

  /** An argument the demo does not understand. */
  public static final class UsageException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    UsageException(String message) {
      super(message);
    }
  }

  record Options(String redisUrl, String redisSource, int jobs, int seconds, Path dataDir) {
    static boolean wantsHelp(String[] args) {
      for (String arg : args) {
        if (arg.equals("--help") || arg.equals("-h")) {
          return true;
        }
      }
      return false;
    }

    static Options parse(String[] args, String redisProperty, String redisEnv) {
      String redisUrl = null;
      String source = null;
      int jobs = 5_000;
      int seconds = 5;
      Path dataDir = Path.of("./data");
      for (String arg : args) {
        int eq = arg.indexOf('=');
        String name = eq < 0 ? arg : arg.substring(0, eq);
        String value = eq < 0 ? "" : arg.substring(eq + 1);
        switch (name) {
          case "--redis" -> {
            redisUrl = nonBlank(name, value);
            source = "--redis";
          }
          case "--jobs" -> jobs = number(name, value, 1, 10_000_000);
          case "--seconds" -> seconds = number(name, value, 0, 3_600);
          case "--data-dir" -> dataDir = Path.of(nonBlank(name, value));
          default -> throw new UsageException("unknown argument '" + arg + "'");
        }
      }
      if (redisUrl == null && redisProperty != null && !redisProperty.isBlank()) {
        redisUrl = redisProperty;
        source = "system property redis.url";
      }
      if (redisUrl == null && redisEnv != null && !redisEnv.isBlank()) {
        redisUrl = redisEnv;
        source = "REDIS_URL";
      }
      return new Options(redisUrl, source, jobs, seconds, dataDir);
    }

    private static String nonBlank(String name, String value) {
      if (value.isBlank()) {
        throw new UsageException(name + " needs a value, as in " + name + "=...");
      }
      return value;
    }

    private static int number(String name, String value, int min, int max) {
      try {
        int n = Integer.parseInt(value);
        if (n >= min && n <= max) {
          return n;
        }
      } catch (NumberFormatException e) {
        // reported below, with the allowed range
      }
      throw new UsageException(name + " must be a whole number from " + min + " to " + max + "; got '" + value + "'");
    }
  }
}
