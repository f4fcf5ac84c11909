package io.delayq.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The benchmark: delayq against Redisson's {@code RDelayedQueue}, the plain sorted-set loop (one job
 * per call, and batched) and the {@code redis-benchmark} ZADD ceiling, every scenario, one Redis, with
 * the memory delayq's idempotency window takes per finished id ({@link IdempotencyScenario});
 * then the Redis Cluster scenario ({@link ClusterScenario}): delayq alone, bulk enqueue and drain at
 * 1, 4 and 16 partitions, on that Redis and on a 3-master Redis Cluster with one replica per master;
 * then the durable schedule scenario ({@link DurableScenario}): delayq's enqueue, one at a time and
 * with {@code scheduleAll}, on a primary with one replica, plain and with {@code waitForReplicas(1,
 * 2 s)}; last the HTTP scenario ({@link HttpScenario}): {@code delayq-server.jar} run as its own
 * process on the bench's Redis, 64 long-polling workers claiming and settling over HTTP while 256
 * idle keep-alive connections stay open. From the repository root:
 *
 * <pre>
 * mvn -q -DskipTests package &amp;&amp; java -jar delayq-bench/target/delayq-bench.jar
 * </pre>
 *
 * <p>Options: {@code --quick} runs smaller counts in under two minutes (the smoke test CI runs) and
 * writes into a new temp dir unless {@code --out} is given; {@code --out=DIR} is where {@code
 * BENCHMARKS.md} and {@code docs/bench/*.png} are written (default: the current directory); {@code
 * --only=NAME[,NAME...]} runs only those {@link Scenario}s (e.g. {@code --only=http}) and writes a
 * report of just their sections, without targets or plots, into a new temp dir unless {@code --out}
 * is given; {@code --server-jar=PATH} is the {@code delayq-server.jar} the HTTP scenario runs
 * (default: {@code delayq-server/target/delayq-server.jar} of the checkout the bench was built in);
 * {@code --rabbitmq=URL} is the broker of the RabbitMQ scenario ({@link RabbitScenario}; default
 * {@code amqp://guest:guest@127.0.0.1:5672}), which alone runs with {@code --only=rabbitmq}.
 *
 * <p>It starts its own {@code redis-server} on a free port (the machine's, when it is Redis 7 or
 * later, else the one bundled with delayq-embedded), with no persistence and {@code
 * maxmemory-policy noeviction}, and stops it at the end. For the cluster scenario it
 * starts six more from the same binary with the same settings (three masters, three replicas, on
 * free ports), and stops them when that scenario ends; for the durable scenario, two more (a
 * primary and its replica), likewise. Exit code: 0 when the run completed (the
 * targets may or may not be met: the report says), 1 when it could not run, 2 for bad arguments.
 */
public final class BenchMain {
  static final String USAGE =
      "usage: java -jar delayq-bench.jar [--quick] [--out=DIR] [--only=NAME[,NAME...]] [--server-jar=PATH]\n"
      + "  --quick            smaller counts, under two minutes (CI smoke test); writes to a temp dir unless --out"
      + " is given\n"
      + "  --out=DIR          where BENCHMARKS.md and docs/bench/*.png are written (default: the current directory)\n"
      + "  --only=NAMES       run only these scenarios, comma-separated, of: "
      + Scenario.names(EnumSet.allOf(Scenario.class)) + "; the report then has just their sections, and goes to a"
      + " temp dir unless --out is given\n"
      + "  --server-jar=PATH  the delayq-server.jar of the http scenario (default: delayq-server/target/"
      + "delayq-server.jar of this checkout)\n"
      + "  --rabbitmq=URL     the broker of the rabbitmq scenario (default: " + RabbitScenario.DEFAULT_URL + ")";

  private BenchMain() {}

  public static void main(String[] args) {
    int code;
    try {
      Options options = Options.parse(args);
      if (options.help()) {
        System.out.println(USAGE);
        code = 0;
      } else {
        Outcome outcome = run(options, System.out);
        System.out.println("report: " + outcome.report());
        code = 0;
      }
    } catch (UsageException e) {
      System.err.println("delayq-bench: " + e.getMessage());
      System.err.println(USAGE);
      code = 2;
    } catch (RuntimeException | IOException e) {
      System.err.println("delayq-bench failed: " + e);
      e.printStackTrace();
      code = 1;
    }
    System.exit(code);
  }

  /** Parses {@code args} and runs; for callers in the same JVM (the quick-mode test). */
  public static Outcome run(String[] args, PrintStream out) throws IOException {
    return run(Options.parse(args), out);
  }

  static Outcome run(Options options, PrintStream out) throws IOException {
    System.setProperty("java.awt.headless", "true");
    BenchSettings settings = options.quick() ? BenchSettings.quickMode() : BenchSettings.full();
    boolean complete = options.scenarios().equals(EnumSet.allOf(Scenario.class));
    // why: a quick or partial report must not overwrite the BENCHMARKS.md of a full run by accident
    Path outDir = (options.out() != null ? options.out()
        : options.quick() || !complete ? Files.createTempDirectory("delayq-bench-") : Path.of("."))
        .toAbsolutePath().normalize();
    Files.createDirectories(outDir);
    Instant date = Instant.now();
    long start = System.nanoTime();
    Machine machine = Machine.describe();
    out.printf("delayq-bench (%s mode%s): %d cores, %s, %s RAM, Java %s; writing to %s%n",
        settings.quick() ? "quick" : "full", complete ? "" : ", only " + Scenario.names(options.scenarios()),
        machine.cores(), machine.cpuModel(), machine.ram(), machine.java(), outDir);
    try (BenchRedis redis = BenchRedis.start()) {
      String version = redis.version();
      out.printf("Redis %s at %s: %s (%s)%n", version, redis.uri(), redis.binaryChoice(), redis.binary());
      Bench bench = new Bench(settings, redis, options.serverJar(), out);
      bench.rabbitmqUrl = options.rabbitmq();
      Results results = new Benchmark(bench, options.scenarios()).run();
      RunInfo info = new RunInfo(date, settings, options.scenarios(), machine, version, redis.binary(),
          redis.binaryChoice(), (System.nanoTime() - start) / 1e9);
      List<String> names = Benchmark.CONTENDERS.stream().map(Contender.Factory::name).toList();
      // why: the plots and targets compare every scenario's figures; a partial run has only some
      List<Path> plots = complete ? Plots.write(outDir, results, settings, names) : List.of();
      Path report = Report.write(outDir, results, info, names, plots);
      bench.log("wrote %s and %d plots under %s", report, plots.size(), outDir.resolve(Plots.DIR));
      if (complete) {
        for (Targets.Target t : Targets.evaluate(results, settings)) {
          out.printf("  %-9s %s: %s%n", t.met() ? "met" : "NOT MET", t.goal(), t.measured());
        }
      }
      return new Outcome(report, plots.stream().map(outDir::resolve).toList(), results);
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }

  /**
   * What a run produced.
   *
   * @param report the BENCHMARKS.md written
   * @param plots the PNGs written
   * @param results the figures behind them
   */
  public record Outcome(Path report, List<Path> plots, Results results) {}

  /** An argument the benchmark does not understand. */
  static final class UsageException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    UsageException(String message) {
      super(message);
    }
  }

  /**
   * The command line.
   *
   * @param scenarios the scenarios to run: all of them unless {@code --only} names some
   * @param serverJar the delayq-server.jar of the http scenario, or {@code null} for the default
   * @param rabbitmq the broker of the rabbitmq scenario, an {@code amqp://} URL
   */
  record Options(boolean quick, Path out, boolean help, Set<Scenario> scenarios, Path serverJar, String rabbitmq) {
    static Options parse(String[] args) {
      boolean quick = false;
      boolean help = false;
      Path out = null;
      Set<Scenario> scenarios = EnumSet.allOf(Scenario.class);
      Path serverJar = null;
      String rabbitmq = RabbitScenario.DEFAULT_URL;
      for (String arg : args) {
        if (arg.equals("--quick")) {
          quick = true;
        } else if (arg.equals("--help") || arg.equals("-h")) {
          help = true;
        } else if (arg.startsWith("--out=") && arg.length() > "--out=".length()) {
          out = Path.of(arg.substring("--out=".length()));
        } else if (arg.startsWith("--only=")) {
          scenarios = Scenario.parseList(arg.substring("--only=".length()));
        } else if (arg.startsWith("--server-jar=") && arg.length() > "--server-jar=".length()) {
          serverJar = Path.of(arg.substring("--server-jar=".length())).toAbsolutePath();
        } else if (arg.startsWith("--rabbitmq=") && arg.length() > "--rabbitmq=".length()) {
          rabbitmq = arg.substring("--rabbitmq=".length());
        } else {
          throw new UsageException("unknown argument '" + arg + "'");
        }
      }
      return new Options(quick, out, help, scenarios, serverJar, rabbitmq);
    }
  }
}
