package io.delayq.bench;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * Steady: workers running; one producer schedules jobs at a fixed rate with the plain synchronous
 * call, each due a fixed time after it is scheduled. Measures lateness (handler start minus due
 * time) and the Redis commands each job cost.
 */
final class SteadyScenario {
  /** Workers get this long to settle (connect, first claim) before the producer starts. */
  private static final long SETTLE_MILLIS = 300;
  /** Past the last due time, how long stragglers are waited for. */
  private static final Duration GRACE = Duration.ofSeconds(30);
  private static final long QUIET_MILLIS = 300;

  private SteadyScenario() {}

  static Results.SteadyResult run(Bench bench, Contender.Factory factory) throws InterruptedException {
    BenchSettings settings = bench.settings;
    int jobs = settings.steadyJobs();
    long intervalNanos = 1_000_000_000L / settings.steadyRatePerSecond();
    long dueInMillis = settings.steadyDueIn().toMillis();
    bench.reset();
    Deliveries deliveries = new Deliveries(jobs);
    try (Contender contender = factory.open(bench.redis.uri(), bench.freshQueue("steady"))) {
      Contender.Running workers = contender.startWorkers(settings.workerThreads(), deliveries);
      RedisStats before;
      RedisStats after;
      double produceSeconds;
      boolean all;
      try {
        Thread.sleep(SETTLE_MILLIS);
        before = bench.redis.stats();
        long start = System.nanoTime();
        for (int i = 0; i < jobs; i++) {
          // why: pace to a fixed schedule, not a fixed gap, so a slow call is caught up on rather than drifting
          long at = start + i * intervalNanos;
          for (long wait = at - System.nanoTime(); wait > 0; wait = at - System.nanoTime()) {
            LockSupport.parkNanos(wait);
          }
          contender.enqueue(new Job(i, System.currentTimeMillis() + dueInMillis));
        }
        produceSeconds = (System.nanoTime() - start) / 1e9;
        all = deliveries.awaitAll(settings.steadyDueIn().plus(GRACE));
        after = bench.redis.stats();
        Thread.sleep(QUIET_MILLIS);
      } finally {
        workers.stop();
      }
      String note = all ? "" : "not all delivered within " + GRACE.toSeconds() + " s of the last due time";
      return new Results.SteadyResult(factory.name(), jobs, jobs / produceSeconds, deliveries.lateness(),
          deliveries.integrity(), after.since(before), note);
    } finally {
      bench.reset();
    }
  }
}
