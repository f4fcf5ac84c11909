package io.delayq.bench;

import java.time.Duration;
import java.util.Locale;

/**
 * Backlog growth: the dispatch throughput of a fixed number of due jobs while a growing number of
 * jobs (10 k, 1 M, 10 M) are pending and not yet due. A queue whose claim cost grows with its size
 * shows it here. Run for delayq and the batched loop at every size, and for Redisson up to the size
 * its loading time allows; each run stops after a time limit and reports the rate reached by then.
 */
final class BacklogScenario {
  private static final Duration FAR_FUTURE = Duration.ofDays(1);

  private BacklogScenario() {}

  /** Why {@code contender} is not run over {@code backlog}, or {@code null} when it is. */
  static String whyNotRun(Bench bench, String contender, int backlog) {
    if (contender.equals(SortedSetLoopContender.NAME)) {
      return "not run: the issue measures this for delayq and the batched loop (same ZRANGEBYSCORE claim)";
    }
    if (contender.equals(RedissonContender.NAME) && backlog > bench.settings.redissonMaxBacklog()) {
      if (bench.settings.quick()) {
        return "not run in quick mode: loading Redisson is slow";
      }
      double seconds = backlog / bench.bulkRate(contender);
      return String.format(Locale.ROOT,
          "not run: loading %,d through offerAsync at the measured %,.0f jobs/s would take ~%s",
          backlog, bench.bulkRate(contender), seconds < 90 ? Math.round(seconds) + " s" : Math.round(seconds / 60) + " min");
    }
    return null;
  }

  /** Loads a backlog of {@code backlog} into an empty Redis, then measures; or says why it is not run. */
  static Results.DrainResult run(Bench bench, Contender.Factory factory, int backlog) throws InterruptedException {
    BenchSettings settings = bench.settings;
    int dueJobs = settings.backlogDueJobs();
    String why = whyNotRun(bench, factory.name(), backlog);
    if (why != null) {
      return Results.DrainResult.notRun(factory.name(), dueJobs, 1, backlog, why);
    }
    bench.reset();
    try {
      String queue = bench.freshQueue("backlog");
      double seconds;
      try (Contender loader = factory.open(bench.redis.uri(), queue)) {
        seconds = BulkLoader.load(loader, dueJobs, backlog, System.currentTimeMillis() + FAR_FUTURE.toMillis(),
            settings.bulkChunk(), settings.loadThreads());
      }
      bench.log("  %s: loaded a backlog of %,d in %.1f s", factory.name(), backlog, seconds);
      return overLoadedBacklog(bench, factory, queue, backlog, seconds);
    } finally {
      bench.reset();
    }
  }

  /**
   * Measures over a backlog already in {@code queue}: {@code backlog} jobs with indexes from {@link
   * BenchSettings#backlogDueJobs()} on, pending far in the future (as the memory scenario leaves them).
   */
  static Results.DrainResult overLoadedBacklog(Bench bench, Contender.Factory factory, String queue, int backlog,
      double loadSeconds) throws InterruptedException {
    BenchSettings settings = bench.settings;
    return DrainScenario.measure(bench, factory, queue, settings.backlogDueJobs(), 1, backlog, loadSeconds,
        settings.backlogTimeout());
  }
}
