package io.delayq.internal;

/**
 * The one source of Java-side time for workers: when to wake, how long to back off. What is due is
 * decided by Redis's clock; this only paces the loop. Tests substitute a fake.
 */
@FunctionalInterface
public interface Ticker {
  Ticker SYSTEM = System::nanoTime;

  long nanoTime();

  /** {@code to - from}, where {@code to} may be {@link Long#MAX_VALUE} for "never". */
  static long nanosBetween(long from, long to) {
    return to == Long.MAX_VALUE ? Long.MAX_VALUE : to - from;
  }
}
