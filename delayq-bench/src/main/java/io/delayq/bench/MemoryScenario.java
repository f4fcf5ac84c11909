package io.delayq.bench;

import java.time.Duration;

/**
 * Memory: jobs pending a day away; {@code used_memory} after the load minus before it, per job.
 * The "before" is taken after the contender has connected, so its connections are not counted.
 */
final class MemoryScenario {
  private static final Duration FAR_FUTURE = Duration.ofDays(1);
  private static final long SETTLE_MILLIS = 300;

  private MemoryScenario() {}

  /**
   * Loads {@link BenchSettings#memoryJobs()} jobs, indexes from {@code firstIndex} on, into {@code
   * queue} on an emptied Redis, and leaves them there: the caller may measure over them as a
   * backlog before it empties Redis again.
   */
  static Results.MemoryResult run(Bench bench, Contender.Factory factory, String queue, int firstIndex)
      throws InterruptedException {
    BenchSettings settings = bench.settings;
    int jobs = settings.memoryJobs();
    bench.reset();
    try (Contender contender = factory.open(bench.redis.uri(), queue)) {
      Thread.sleep(SETTLE_MILLIS);
      long before = bench.redis.stats().usedMemory();
      double seconds = BulkLoader.load(contender, firstIndex, jobs,
          System.currentTimeMillis() + FAR_FUTURE.toMillis(), settings.bulkChunk(), settings.loadThreads());
      // why: let replies drain from client output buffers, which used_memory counts too
      Thread.sleep(SETTLE_MILLIS);
      long after = bench.redis.stats().usedMemory();
      Integrity integrity = Integrity.stored(jobs, contender.pending());
      bench.log("  %s: loaded %,d in %.1f s", factory.name(), jobs, seconds);
      return new Results.MemoryResult(factory.name(), jobs, (double) (after - before) / jobs, seconds, integrity, "");
    }
  }
}
