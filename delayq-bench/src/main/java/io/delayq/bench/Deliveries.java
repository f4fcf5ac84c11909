package io.delayq.bench;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Counts the deliveries of one scenario run by job index, and how late each was. Safe to call from
 * many worker threads at once; the handler does nothing else, so what is measured is the contender.
 */
final class Deliveries implements DeliveryHandler {
  /** Three significant digits: 0.1% resolution, plenty for percentiles printed to 0.01 ms. */
  private static final int SIGNIFICANT_DIGITS = 3;

  private final int expected;
  private final AtomicIntegerArray counts;
  private final CountDownLatch allArrived;
  private final AtomicInteger notYetArrived;
  private final LongAdder total = new LongAdder();
  private final LongAdder unexpected = new LongAdder();
  private final LongAdder early = new LongAdder();
  private final Recorder recorder = new Recorder(SIGNIFICANT_DIGITS);
  private final AtomicLong completedNanos = new AtomicLong();

  /** For jobs 0 to {@code expected - 1}; any other index counts as unexpected. */
  Deliveries(int expected) {
    this.expected = expected;
    this.counts = new AtomicIntegerArray(expected);
    this.allArrived = new CountDownLatch(expected);
    this.notYetArrived = new AtomicInteger(expected);
  }

  @Override
  public void delivered(int index, long dueMicros, long startMicros) {
    total.increment();
    if (index < 0 || index >= expected) {
      unexpected.increment();
      return;
    }
    long late = startMicros - dueMicros;
    if (late < 0) {
      early.increment();
      // why: a histogram holds no negative values; the early count is what reports these
      recorder.recordValue(0);
    } else {
      recorder.recordValue(late);
    }
    if (counts.incrementAndGet(index) == 1) {
      // why: the time is set before the last count-down, so awaitAll never returns before it can be read
      if (notYetArrived.decrementAndGet() == 0) {
        completedNanos.set(System.nanoTime());
      }
      allArrived.countDown();
    }
  }

  /** Waits until every expected job arrived at least once; returns whether they all did in time. */
  boolean awaitAll(Duration timeout) throws InterruptedException {
    return allArrived.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  /** {@link System#nanoTime()} when the last expected job first arrived, or 0 if not all did. */
  long completedNanos() {
    return completedNanos.get();
  }

  /** Distinct expected jobs delivered so far. */
  long distinct() {
    return expected - allArrived.getCount();
  }

  Integrity integrity() {
    long distinct = distinct();
    long deliveriesOfExpected = total.sum() - unexpected.sum();
    return new Integrity(expected, expected - distinct, deliveriesOfExpected - distinct, unexpected.sum());
  }

  /** The lateness recorded so far (call once, after the run). */
  Lateness lateness() {
    Histogram histogram = recorder.getIntervalHistogram();
    return new Lateness(histogram, early.sum());
  }
}
