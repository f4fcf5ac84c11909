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
    long due = System.currentTimeMillis() + FAR_FUTURE.toMillis();

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

    bench.reset();
    double bulkRate;
    Integrity bulkIntegrity;
    try (Contender contender = factory.open(bench.redis.uri(), bench.freshQueue("enqueue-bulk"))) {
      double seconds = BulkLoader.load(contender, 0, jobs, due, bench.settings.bulkChunk(), 1);
      bulkRate = jobs / seconds;
      bulkIntegrity = Integrity.stored(jobs, contender.pending());
    }
    bench.reset();
    bench.recordBulkRate(factory.name(), bulkRate);
    return new Results.EnqueueResult(factory.name(), jobs, syncRate, bulkRate, syncIntegrity.plus(bulkIntegrity), "");
  }
}
