package io.delayq.bench;

import java.util.Locale;

/**
 * Backlog growth: the dispatch throughput of a fixed number of due jobs while a growing number of
 * jobs (10 k, 1 M, 10 M) are pending and not yet due. A queue whose claim cost grows with its
 * size shows it here. Run for delayq and the batched loop at every size, and for Redisson up to the
 * size its loading time allows.
 */
final class BacklogScenario {
  private BacklogScenario() {}

  /** Measures {@code factory} over a backlog of {@code backlog}, or says why it is not run. */
  static Results.DrainResult run(Bench bench, Contender.Factory factory, int backlog) throws InterruptedException {
    int dueJobs = bench.settings.backlogDueJobs();
    String why = whyNotRun(bench, factory.name(), backlog);
    if (why != null) {
      return Results.DrainResult.notRun(factory.name(), dueJobs, 1, backlog, why);
    }
    return DrainScenario.run(bench, factory, dueJobs, 1, backlog);
  }

  private static String whyNotRun(Bench bench, String contender, int backlog) {
    if (contender.equals(SortedSetLoopContender.NAME)) {
      return "not run: the issue measures this for delayq and the batched loop (same ZRANGEBYSCORE claim)";
    }
    if (contender.equals(RedissonContender.NAME) && backlog > bench.settings.redissonMaxBacklog()) {
      double minutes = backlog / bench.bulkRate(contender) / 60;
      return String.format(Locale.ROOT,
          "not run: loading %,d through offerAsync at the measured %,.0f jobs/s would take ~%.0f min",
          backlog, bench.bulkRate(contender), minutes);
    }
    return null;
  }
}
