package io.delayq.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Durable schedules: delayq's enqueue on a primary with {@value BenchReplicaPair#REPLICAS} replica
 * ({@link BenchReplicaPair}), started for this scenario from the same {@code redis-server} binary
 * with the same settings as the single node, and stopped after it. Two modes, plain first: delayq as
 * everywhere else (Redis replicates asynchronously), then with {@code waitForReplicas(1, 2 s)}, where
 * {@code schedule} and {@code scheduleAll} return only after the replica confirmed the write (a
 * {@code WAIT} once the writes are answered). Each mode gets an untimed warm-up, then the enqueue
 * scenario's two runs: one job per {@code schedule} call, and {@code scheduleAll} in chunks, both
 * from one thread, jobs due in a day so nothing drains.
 */
final class DurableScenario {
  static final String PLAIN = "plain";
  static final String DURABLE = "durable";
  static final List<String> MODES = List.of(PLAIN, DURABLE);
  /** The {@code waitForReplicas} timeout of the durable mode. */
  static final Duration WAIT_TIMEOUT = Duration.ofSeconds(2);

  private DurableScenario() {}

  /** Runs both modes into {@code bench.results.durable}; a mode that fails gets a row saying so. */
  static void run(Bench bench) throws InterruptedException {
    bench.log("durable: starting a primary with %d replica (%s)", BenchReplicaPair.REPLICAS, bench.redis.binary());
    long start = System.nanoTime();
    BenchReplicaPair pair;
    try {
      pair = BenchReplicaPair.start(bench.redis.binary());
    } catch (RuntimeException e) {
      bench.log("  FAILED: %s", e);
      fillMissing(bench, "not run: the primary and replica did not start: " + Benchmark.brief(e));
      return;
    }
    try (pair) {
      bench.log("  ready in %.1f s: %s", (System.nanoTime() - start) / 1e9, pair.describe());
      for (String mode : MODES) {
        Contender.Factory factory = mode.equals(DURABLE)
            ? DelayqContender.durableFactory(BenchReplicaPair.REPLICAS, WAIT_TIMEOUT)
            : DelayqContender.factory(1);
        warmUp(bench, pair, factory, mode);
        Results.DurableResult result = measure(bench, pair, factory, mode);
        bench.results.durable.add(result);
        bench.log("  %s", Summary.of(result));
      }
    } catch (RuntimeException e) {
      // why: a pair that cannot be flushed any more makes the modes after it meaningless, not the whole run
      bench.log("  FAILED: %s", e);
      fillMissing(bench, "not run: " + Benchmark.brief(e));
    }
  }

  /**
   * Untimed: both calls of the mode, so the JIT has compiled the mode's path (the durable one adds
   * the WAIT and its reply handling) before it is measured.
   */
  private static void warmUp(Bench bench, RedisTarget redis, Contender.Factory factory, String mode)
      throws InterruptedException {
    int one = bench.settings.warmupJobs();
    int bulk = bench.settings.bulkChunk();
    bench.log("durable warm-up, %s: %,d jobs one at a time, %,d with scheduleAll", mode, one, bulk);
    try {
      bench.reset(redis);
      long due = EnqueueScenario.farFuture();
      try (Contender contender = factory.open(redis.uri(), bench.freshQueue("durable-warmup"))) {
        for (int i = 0; i < one; i++) {
          contender.enqueue(new Job(i, due));
        }
        BulkLoader.load(contender, one, bulk, due, bench.settings.bulkChunk(), 1);
      }
    } catch (RuntimeException e) {
      // why: the measurement reports its own failure; a warm-up failure only makes it colder
      bench.log("  warm-up FAILED: %s", e);
    } finally {
      bench.reset(redis);
    }
  }

  /** Both runs of one mode; a run that fails leaves NaN and says why in the note. */
  private static Results.DurableResult measure(Bench bench, RedisTarget redis, Contender.Factory factory,
      String mode) throws InterruptedException {
    BenchSettings s = bench.settings;
    List<String> notes = new ArrayList<>();
    Integrity integrity = null;

    bench.log("durable scenario, %s: %,d jobs one at a time", mode, s.durableOneJobs());
    double onePerSecond = Double.NaN;
    try {
      EnqueueScenario.Bulk one = oneAtATime(bench, redis, factory, bench.freshQueue("durable-" + mode + "-one"),
          s.durableOneJobs());
      onePerSecond = one.perSecond();
      integrity = one.integrity();
    } catch (RuntimeException e) {
      bench.log("  FAILED: %s", e);
      notes.add("one at a time failed: " + Benchmark.brief(e));
    } finally {
      bench.reset(redis);
    }

    bench.log("durable scenario, %s: %,d jobs with scheduleAll", mode, s.durableBulkJobs());
    double bulkPerSecond = Double.NaN;
    try {
      EnqueueScenario.Bulk bulk = EnqueueScenario.bulk(bench, redis, factory,
          bench.freshQueue("durable-" + mode + "-bulk"), s.durableBulkJobs(), EnqueueScenario.farFuture());
      bulkPerSecond = bulk.perSecond();
      integrity = integrity == null ? bulk.integrity() : integrity.plus(bulk.integrity());
    } catch (RuntimeException e) {
      bench.log("  FAILED: %s", e);
      notes.add("scheduleAll failed: " + Benchmark.brief(e));
    } finally {
      bench.reset(redis);
    }
    return new Results.DurableResult(mode, s.durableOneJobs(), onePerSecond, s.durableBulkJobs(), bulkPerSecond,
        integrity, String.join("; ", notes));
  }

  /**
   * As the enqueue scenario's synchronous run: {@code jobs} jobs due in a day, one per {@code
   * schedule} call from one thread, on {@code redis} emptied first (and left holding them).
   */
  private static EnqueueScenario.Bulk oneAtATime(Bench bench, RedisTarget redis, Contender.Factory factory,
      String queue, int jobs) {
    bench.reset(redis);
    long due = EnqueueScenario.farFuture();
    try (Contender contender = factory.open(redis.uri(), queue)) {
      long start = System.nanoTime();
      for (int i = 0; i < jobs; i++) {
        contender.enqueue(new Job(i, due));
      }
      double perSecond = jobs / ((System.nanoTime() - start) / 1e9);
      return new EnqueueScenario.Bulk(perSecond, Integrity.stored(jobs, contender.pending()));
    }
  }

  /** A "not run" row for every mode that has none yet. */
  private static void fillMissing(Bench bench, String why) {
    for (String mode : MODES) {
      if (find(bench.results, mode) == null) {
        bench.results.durable.add(Results.DurableResult.notRun(mode, bench.settings.durableOneJobs(),
            bench.settings.durableBulkJobs(), why));
      }
    }
  }

  /** The mode's result, or {@code null}. */
  static Results.DurableResult find(Results results, String mode) {
    return Results.find(results.durable, x -> x.mode().equals(mode)).orElse(null);
  }
}
