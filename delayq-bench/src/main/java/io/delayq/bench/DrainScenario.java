package io.delayq.bench;

import java.time.Duration;
import java.util.Locale;

/**
 * Drain: jobs that are all due before any worker starts; then the workers start and the time to
 * the last job's first delivery is measured. The same measurement serves the backlog-growth runs
 * (with pending, not-yet-due jobs beside the due ones) and the partition runs.
 *
 * <p>How the due jobs are put in: through one instance, due over a short span in the order they are
 * scheduled (about a hundred per millisecond), starting just after the load is expected to end; that instance is closed, and the
 * workers start on a fresh instance once the last job is due. Two reasons. Redisson moves due values
 * to its target queue from whatever client holds the delayed queue, so jobs already due while
 * loading would be half dispatched before the clock starts. And Redisson finds each moved value in
 * an insertion-ordered list by {@code LREM}: a thousand jobs sharing one due millisecond leave the
 * order within it random, which would make that scan, not the queue, the thing measured.
 */
final class DrainScenario {
  /** Headroom over the expected load time before the first due job falls due. */
  private static final double LOAD_TIME_MARGIN = 1.5;
  private static final long MIN_LEAD_MILLIS = 300;
  /** The due jobs' due times are spread in the order they are scheduled, this many per millisecond. */
  private static final int DUE_PER_MILLI = 100;
  /** How long to keep workers running after the last first delivery, so that a duplicate is counted. */
  private static final long QUIET_MILLIS = 300;

  private DrainScenario() {}

  /** The drain scenario proper (and a partition run): {@code jobs} due jobs on an empty Redis. */
  static Results.DrainResult run(Bench bench, Contender.Factory factory, int jobs, int partitions)
      throws InterruptedException {
    return run(bench, bench.redis, factory, bench.freshQueue("drain"), jobs, partitions);
  }

  /** As {@link #run(Bench, Contender.Factory, int, int)}, on {@code redis}, with the queue named {@code queue}. */
  static Results.DrainResult run(Bench bench, RedisTarget redis, Contender.Factory factory, String queue, int jobs,
      int partitions) throws InterruptedException {
    bench.reset(redis);
    try {
      return measure(bench, redis, factory, queue, jobs, partitions, 0, 0, timeout(jobs));
    } finally {
      bench.reset(redis);
    }
  }

  /** How long a drain of {@code jobs} may run before it is stopped. */
  static Duration timeout(int jobs) {
    return Duration.ofSeconds(60 + jobs / 2_000);
  }

  /** As the overload with a {@link RedisTarget}, on the single node. */
  static Results.DrainResult measure(Bench bench, Contender.Factory factory, String queue, int jobs,
      int partitions, int backlog, double backlogLoadSeconds, Duration timeout) throws InterruptedException {
    return measure(bench, bench.redis, factory, queue, jobs, partitions, backlog, backlogLoadSeconds, timeout);
  }

  /**
   * Dispatches {@code jobs} due jobs (indexes 0 to jobs - 1) on {@code queue}, which already holds
   * {@code backlog} jobs pending far in the future (indexes from {@code jobs} on, so that a backlog
   * job delivered counts as unexpected). Stops after {@code timeout}, reporting the rate so far.
   */
  static Results.DrainResult measure(Bench bench, RedisTarget redis, Contender.Factory factory, String queue,
      int jobs, int partitions, int backlog, double backlogLoadSeconds, Duration timeout)
      throws InterruptedException {
    BenchSettings settings = bench.settings;
    String note = "";
    long firstDue;
    try (Contender loader = factory.open(redis.uri(), queue)) {
      long expectedLoadMillis = (long) (jobs / bench.bulkRate(factory.name()) * 1000 * LOAD_TIME_MARGIN);
      firstDue = System.currentTimeMillis() + expectedLoadMillis + MIN_LEAD_MILLIS;
      long base = firstDue;
      BulkLoader.load(loader, 0, jobs, index -> base + index / DUE_PER_MILLI, settings.bulkChunk(),
          settings.loadThreads());
      long overrun = System.currentTimeMillis() - firstDue;
      if (overrun > 0) {
        note = "loading ended " + overrun + " ms after the first job fell due";
      }
    }
    long wait = firstDue + jobs / DUE_PER_MILLI + 20 - System.currentTimeMillis();
    if (wait > 0) {
      Thread.sleep(wait);
    }

    Deliveries deliveries = new Deliveries(jobs);
    try (Contender contender = factory.open(redis.uri(), queue)) {
      RedisStats before = redis.stats();
      long start = System.nanoTime();
      Contender.Running workers = contender.startWorkers(settings.workerThreads(), deliveries);
      boolean all;
      RedisStats after;
      try {
        all = deliveries.awaitAll(timeout);
        after = redis.stats();
        Thread.sleep(QUIET_MILLIS);
      } finally {
        workers.stop();
      }
      long end = all ? deliveries.completedNanos() : System.nanoTime();
      double rate = deliveries.distinct() / ((end - start) / 1e9);
      Integrity integrity = deliveries.integrity();
      if (!all) {
        // why: jobs still queued when the run was cut short are undelivered, not lost
        long queued = Math.max(0, contender.pending() - backlog);
        note = DrainScenario.join(note, String.format(Locale.ROOT,
            "stopped after %d s with %,d of %,d delivered and %,d still queued", timeout.toSeconds(),
            deliveries.distinct(), jobs, Math.min(queued, integrity.lost())));
        integrity = new Integrity(integrity.expected(), Math.max(0, integrity.lost() - queued),
            integrity.duplicates(), integrity.unexpected());
      }
      return new Results.DrainResult(factory.name(), jobs, partitions, backlog, backlogLoadSeconds, rate,
          integrity, before == null || after == null ? null : after.since(before), note);
    }
  }

  static String join(String a, String b) {
    return a.isEmpty() ? b : a + "; " + b;
  }
}
