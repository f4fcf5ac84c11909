package io.delayq.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * Waits for a Redis reply by spinning briefly before blocking. A loopback round trip takes tens of
 * microseconds, and waking a parked thread can cost as much again (more on virtual machines), so a
 * short spin roughly triples a synchronous caller's rate. When replies keep arriving too late to
 * catch (Redis busy, or no spare core to spin on), spinning only burns CPU that others need: then
 * it stops, and is tried again now and then.
 */
final class SpinWait {
  private static final long SPIN_NANOS = 100_000;
  private static final int GIVE_UP_AFTER_MISSES = 4;
  private static final int RETRY_EVERY = 64;

  private volatile int misses;
  private volatile int skipped;

  <T> T get(CompletableFuture<T> future) throws InterruptedException, ExecutionException {
    if (!future.isDone() && shouldSpin()) {
      long until = System.nanoTime() + SPIN_NANOS;
      while (!future.isDone() && System.nanoTime() < until) {
        Thread.onSpinWait();
      }
      // why: racy counters are fine; they only steer a heuristic
      misses = future.isDone() ? 0 : misses + 1;
    }
    return future.get();
  }

  private boolean shouldSpin() {
    if (misses < GIVE_UP_AFTER_MISSES) {
      return true;
    }
    if (++skipped % RETRY_EVERY == 0) {
      misses = GIVE_UP_AFTER_MISSES - 1;
      return true;
    }
    return false;
  }
}
