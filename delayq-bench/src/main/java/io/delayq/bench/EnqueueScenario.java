package io.delayq.bench;

import java.time.Duration;

/**
 * Enqueue: jobs from one producer thread, first each with the plain synchronous call, then all with
 * the bulk call in chunks. They are due a day later, so nothing is consumed; integrity is whether
 * Redis then holds exactly the jobs sent.
 */
final class EnqueueScenario {
  private static final Duration FAR_FUTURE = Duration.ofDays(1);

  private EnqueueScenario() {}

  static Results.EnqueueResult run(Bench bench, Contender.Factory factory) throws InterruptedException {
    int jobs = bench.settings.enqueueJobs();
    long due = farFuture();

    bench.reset();
    double syncRate;
    Integrity syncIntegrity;
    try (Contender contender = factory.open(bench.redis.uri(), bench.freshQueue("enqueue-sync"))) {
      long start = System.nanoTime();
      for (int i = 0; i < jobs; i++) {
        contender.enqueue(new Job(i, due));
      }
      syncRate = jobs / ((System.nanoTime() - start) / 1e9);
      syncIntegrity = Integrity.stored(jobs, contender.pending());
    }

    Bulk bulk = bulk(bench, bench.redis, factory, bench.freshQueue("enqueue-bulk"), jobs, due);
    bench.reset();
    bench.recordBulkRate(factory.name(), bulk.perSecond());
    return new Results.EnqueueResult(factory.name(), jobs, syncRate, bulk.perSecond(),
        syncIntegrity.plus(bulk.integrity()), "");
  }

  /**
   * The bulk run alone, on {@code redis} emptied first (and left holding the jobs): {@code jobs}
   * jobs due at {@code dueMillis} on {@code queue}, scheduled with the bulk call in chunks from one
   * thread. The cluster scenario uses it too.
   */
  static Bulk bulk(Bench bench, RedisTarget redis, Contender.Factory factory, String queue, int jobs,
      long dueMillis) throws InterruptedException {
    bench.reset(redis);
    try (Contender contender = factory.open(redis.uri(), queue)) {
      double seconds = BulkLoader.load(contender, 0, jobs, dueMillis, bench.settings.bulkChunk(), 1);
      return new Bulk(jobs / seconds, Integrity.stored(jobs, contender.pending()));
    }
  }

  /** Due time for jobs that must not be consumed while they are counted: a day from now. */
  static long farFuture() {
    return System.currentTimeMillis() + FAR_FUTURE.toMillis();
  }

  /**
   * One bulk run (or, in the durable scenario, one run of one job per call).
   *
   * @param perSecond jobs/s
   * @param integrity jobs missing from, or extra in, Redis afterwards
   */
  record Bulk(double perSecond, Integrity integrity) {}
}
