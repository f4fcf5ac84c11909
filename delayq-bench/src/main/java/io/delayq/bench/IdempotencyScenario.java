package io.delayq.bench;

import io.delayq.Delayq;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Idempotency window: what remembering the ids of finished jobs costs Redis. delayq alone drains
 * {@link BenchSettings#memoryJobs()} due jobs scheduled with {@code DuplicatePolicy.KEEP} (the
 * policy whose ids the window keeps) twice, each time on an emptied Redis: first with the default
 * window, then with {@code idempotencyWindow(Duration.ZERO)}. {@code used_memory} is read before the load
 * and again once every job was acked and the clients had closed. What the two runs leave behind
 * apart from the window (the queue's settings, the claim counter, the connect-time probe key) is
 * the same, so their difference, per job, is the window's cost per finished id. The window's id sets
 * ({@code {dq:<queue>:<partition>}:done:a} and {@code done:b}) are weighed with {@code MEMORY USAGE}
 * as well, as a check on that figure.
 */
final class IdempotencyScenario {
  private static final long SETTLE_MILLIS = 300;
  private static final long QUIET_MILLIS = 300;

  private IdempotencyScenario() {}

  static Results.IdempotencyResult run(Bench bench) throws InterruptedException {
    int jobs = bench.settings.memoryJobs();
    Duration window = Delayq.Builder.DEFAULT_IDEMPOTENCY_WINDOW;
    Run on = measure(bench, DelayqContender.keepFactory(window), jobs);
    bench.log("  window on (%d min): %s; used_memory grew %,d bytes; done sets hold %,d ids in %,d bytes",
        window.toMinutes(), Summary.of(on.drain()), on.usedMemory(), on.idsHeld(), on.doneSetBytes());
    Run off = measure(bench, DelayqContender.keepFactory(Duration.ZERO), jobs);
    bench.log("  window off: %s; used_memory grew %,d bytes; done sets hold %,d ids", Summary.of(off.drain()),
        off.usedMemory(), off.idsHeld());

    // why: the drains' own notes stay with their DrainResults; these are about the memory readings
    List<String> notes = new ArrayList<>();
    if (on.jobsStored() > 0) {
      notes.add(String.format(Locale.ROOT, "window on: %,d jobs were still stored when memory was read",
          on.jobsStored()));
    }
    if (off.jobsStored() > 0) {
      notes.add(String.format(Locale.ROOT, "window off: %,d jobs were still stored when memory was read",
          off.jobsStored()));
    }
    if (on.idsHeld() != jobs) {
      notes.add(String.format(Locale.ROOT, "the window held %,d ids, not %,d", on.idsHeld(), jobs));
    }
    if (off.idsHeld() > 0) {
      notes.add(String.format(Locale.ROOT, "with the window off, %,d ids were remembered anyway", off.idsHeld()));
    }
    return new Results.IdempotencyResult(jobs, window, on.usedMemory(), off.usedMemory(), on.doneSetBytes(),
        on.idsHeld(), on.drain(), off.drain(), String.join("; ", notes));
  }

  /**
   * Loads {@code jobs} jobs already due (through the bulk call, from several threads), then starts
   * the workers and waits until every job has been delivered and acked. Unlike the drain scenario,
   * no care is taken to start the clock with nothing dispatched: only memory is the point here, and
   * the rate is a side note. Returns once the instance is closed, so no connection of it is counted.
   */
  private static Results.DrainResult drain(Bench bench, Contender.Factory factory, String queue, int jobs)
      throws InterruptedException {
    BenchSettings settings = bench.settings;
    Duration timeout = DrainScenario.timeout(jobs);
    Deliveries deliveries = new Deliveries(jobs);
    try (Contender contender = factory.open(bench.redis.uri(), queue)) {
      BulkLoader.load(contender, 0, jobs, System.currentTimeMillis() - 1_000, settings.bulkChunk(),
          settings.loadThreads());
      long start = System.nanoTime();
      Contender.Running workers = contender.startWorkers(settings.workerThreads(), deliveries);
      boolean all;
      try {
        all = deliveries.awaitAll(timeout);
        // why: a duplicate delivery shortly after the last first one is still counted
        Thread.sleep(QUIET_MILLIS);
      } finally {
        // why: closing the workers waits for their batched acks, so every id is remembered before memory is read
        workers.stop();
      }
      long end = all ? deliveries.completedNanos() : System.nanoTime();
      String note = all ? "" : String.format(Locale.ROOT, "stopped after %d s with %,d of %,d delivered",
          timeout.toSeconds(), deliveries.distinct(), jobs);
      return new Results.DrainResult(factory.name(), jobs, 1, 0, 0,
          deliveries.distinct() / ((end - start) / 1e9), deliveries.integrity(), null, note);
    }
  }

  /** The glob that matches the window's id sets of every partition of {@code queue}. */
  static String doneSetPattern(String queue) {
    return "{dq:" + queue + ":*}:done:[ab]";
  }

  /**
   * What one run measured.
   *
   * @param usedMemory {@code used_memory} after minus before
   * @param doneSetBytes {@code MEMORY USAGE} of the id sets, summed
   * @param idsHeld their members, summed
   * @param jobsStored job records still in Redis when memory was read (0 when every ack went through)
   */
  private record Run(Results.DrainResult drain, long usedMemory, long doneSetBytes, long idsHeld, long jobsStored) {}

  private static Run measure(Bench bench, Contender.Factory factory, int jobs) throws InterruptedException {
    bench.reset();
    try {
      String queue = bench.freshQueue("idempotency");
      Thread.sleep(SETTLE_MILLIS);
      long before = bench.redis.stats().usedMemory();
      Results.DrainResult drain = drain(bench, factory, queue, jobs);
      // why: let closed clients' buffers go and the sets' incremental rehash finish, as the memory scenario does
      Thread.sleep(SETTLE_MILLIS);
      long after = bench.redis.stats().usedMemory();
      long doneBytes = 0;
      long ids = 0;
      for (String key : bench.redis.keys(doneSetPattern(queue))) {
        doneBytes += bench.redis.memoryUsage(key);
        ids += bench.redis.setSize(key);
      }
      long stored = 0;
      for (String key : bench.redis.keys("{dq:" + queue + ":*}:jobs")) {
        stored += bench.redis.hashSize(key);
      }
      return new Run(drain, after - before, doneBytes, ids, stored);
    } finally {
      bench.reset();
    }
  }
}
