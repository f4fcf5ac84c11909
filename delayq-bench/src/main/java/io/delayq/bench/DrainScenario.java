package io.delayq.bench;

import java.time.Duration;

/**
 * Drain: jobs that are all due before any worker starts; then the workers start and the time to
 * the last delivery is measured. The same measurement serves the backlog-growth runs (with pending,
 * not-yet-due jobs beside the due ones) and the partition runs.
 *
 * <p>The due jobs are loaded through one instance with a due time just after the load is expected to
 * end, that instance is closed, and the workers start on a fresh instance once they are all due.
 * Why not simply "due now": Redisson moves due values to its target queue from whatever client
 * holds the delayed queue, so jobs already due while loading would be half dispatched before the
 * clock starts.
 */
final class DrainScenario {
  private static final Duration FAR_FUTURE = Duration.ofDays(1);
  /** Headroom over the expected load time before the due jobs fall due. */
  private static final double LOAD_TIME_MARGIN = 1.5;
  private static final long MIN_LEAD_MILLIS = 1_000;
  /** How long to keep workers running after the last first delivery, so that a duplicate is counted. */
  private static final long QUIET_MILLIS = 500;

  private DrainScenario() {}

  /**
   * Dispatches {@code jobs} due jobs, with {@code backlog} jobs pending a day away beside them.
   *
   * @param partitions reported as is (the factory decides the real count)
   */
  static Results.DrainResult run(Bench bench, Contender.Factory factory, int jobs, int partitions, int backlog)
      throws InterruptedException {
    BenchSettings settings = bench.settings;
    String queue = bench.freshQueue("drain");
    bench.reset();

    double backlogSeconds = 0;
    long dueAt;
    String note = "";
    try (Contender loader = factory.open(bench.redis.uri(), queue)) {
      if (backlog > 0) {
        long farDue = System.currentTimeMillis() + FAR_FUTURE.toMillis();
        // why: backlog jobs take indexes after the due ones, so a backlog job delivered counts as unexpected
        backlogSeconds = BulkLoader.load(loader, jobs, backlog, farDue, settings.bulkChunk(), settings.loadThreads());
        bench.log("  %s: loaded a backlog of %,d in %.1f s", factory.name(), backlog, backlogSeconds);
      }
      long expectedLoadMillis = (long) (jobs / bench.bulkRate(factory.name()) * 1000 * LOAD_TIME_MARGIN);
      dueAt = System.currentTimeMillis() + Math.max(MIN_LEAD_MILLIS, expectedLoadMillis + MIN_LEAD_MILLIS);
      BulkLoader.load(loader, 0, jobs, dueAt, settings.bulkChunk(), settings.loadThreads());
      long overrun = System.currentTimeMillis() - dueAt;
      if (overrun > 0) {
        note = "loading ended " + overrun + " ms after the jobs fell due";
      }
    }
    long wait = dueAt + 20 - System.currentTimeMillis();
    if (wait > 0) {
      Thread.sleep(wait);
    }

    Deliveries deliveries = new Deliveries(jobs);
    Duration timeout = Duration.ofSeconds(60 + jobs / 2_000);
    try (Contender contender = factory.open(bench.redis.uri(), queue)) {
      RedisStats before = bench.redis.stats();
      long start = System.nanoTime();
      Contender.Running workers = contender.startWorkers(settings.workerThreads(), deliveries);
      boolean all;
      RedisStats after;
      try {
        all = deliveries.awaitAll(timeout);
        after = bench.redis.stats();
        Thread.sleep(QUIET_MILLIS);
      } finally {
        workers.stop();
      }
      long end = all ? deliveries.completedNanos() : System.nanoTime();
      double rate = deliveries.distinct() / ((end - start) / 1e9);
      if (!all) {
        note = join(note, "timed out after " + timeout.toSeconds() + " s");
      }
      return new Results.DrainResult(factory.name(), jobs, partitions, backlog, backlogSeconds, rate,
          deliveries.integrity(), after.since(before), note);
    } finally {
      bench.reset();
    }
  }

  static String join(String a, String b) {
    return a.isEmpty() ? b : a + "; " + b;
  }
}
