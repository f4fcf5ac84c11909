package io.delayq.bench;

import java.util.List;

/** Small helpers for the benchmark's own threads. */
final class Threads {
  private static final long JOIN_MILLIS = 10_000;

  private Threads() {}

  /** Joins each thread, interrupting any that has not ended within 10 s. */
  static void joinAll(List<Thread> threads) {
    for (Thread t : threads) {
      try {
        t.join(JOIN_MILLIS);
        if (t.isAlive()) {
          t.interrupt();
          t.join(JOIN_MILLIS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /** Sleeps; keeps the interrupt flag and returns early when interrupted. */
  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
