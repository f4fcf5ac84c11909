package io.delayq.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Waits for a Redis reply by spinning briefly before blocking. A loopback round trip takes tens of
 * microseconds, and waking a parked thread can cost as much again (more on virtual machines), so a
 * short spin roughly doubles a synchronous caller's rate. When most replies arrive too late to be
 * caught (Redis busy, or no spare core to spin on), spinning only burns CPU that others need: it
 * then pauses for a while and tries again.
 */
final class SpinWait {
  private static final long SPIN_NANOS = 100_000;
  /** Spinning goes on while at least this many of the last 64 spins caught their reply. */
  private static final int MIN_HITS_OF_64 = 16;
  private static final int PAUSE_CALLS = 256;

  // why: racy fields are fine here; they only steer a heuristic, and a lost update costs nothing
  private long history = -1L;
  private int pausedCalls;

  /**
   * The reply, waiting at most {@code timeoutNanos}.
   *
   * @throws TimeoutException when Redis did not answer in time
   */
  <T> T get(CompletableFuture<T> future, long timeoutNanos)
      throws InterruptedException, ExecutionException, TimeoutException {
    long start = System.nanoTime();
    if (!future.isDone() && shouldSpin()) {
      long until = start + SPIN_NANOS;
      while (!future.isDone() && System.nanoTime() < until) {
        Thread.onSpinWait();
      }
      history = (history << 1) | (future.isDone() ? 1 : 0);
      if (Long.bitCount(history) < MIN_HITS_OF_64) {
        pausedCalls = PAUSE_CALLS;
      }
    }
    return future.get(timeoutNanos - (System.nanoTime() - start), TimeUnit.NANOSECONDS);
  }

  private boolean shouldSpin() {
    if (pausedCalls > 0) {
      if (--pausedCalls == 0) {
        history = -1L;
      }
      return false;
    }
    return true;
  }
}
