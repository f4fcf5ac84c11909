package io.delayq.bench;

import java.time.Duration;

/**
 * Runs each contender's enqueue and delivery paths once before anything is measured, so that the
 * first contender measured does not pay for the JIT compiling code the others then find warm.
 */
final class Warmup {
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  private Warmup() {}

  static void run(Bench bench, Contender.Factory factory) throws InterruptedException {
    int jobs = bench.settings.warmupJobs();
    bench.reset();
    Deliveries deliveries = new Deliveries(2 * jobs);
    try (Contender contender = factory.open(bench.redis.uri(), bench.freshQueue("warmup"))) {
      long due = System.currentTimeMillis() - 1_000;
      for (int i = 0; i < jobs; i++) {
        contender.enqueue(new Job(i, due));
      }
      BulkLoader.load(contender, jobs, jobs, due, bench.settings.bulkChunk(), 1);
      Contender.Running workers = contender.startWorkers(bench.settings.workerThreads(), deliveries);
      try {
        if (!deliveries.awaitAll(TIMEOUT)) {
          bench.log("  warm-up of %s: only %d of %d delivered within %d s", factory.name(),
              deliveries.distinct(), 2 * jobs, TIMEOUT.toSeconds());
        }
      } finally {
        workers.stop();
      }
    } finally {
      bench.reset();
    }
  }
}
