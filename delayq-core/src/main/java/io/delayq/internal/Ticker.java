package io.delayq.internal;

/**
 * The one source of Java-side time for workers: when to wake, how long to back off. What is due is
 * decided by Redis's clock; this only paces the loop. Tests substitute a fake.
 */
@FunctionalInterface
public interface Ticker {
  Ticker SYSTEM = System::nanoTime;

  long nanoTime();
}
