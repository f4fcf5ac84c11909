package io.delayq.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Claimed jobs waiting for a handler thread. A job is never started on a lease that has ended, or
 * that ends within the safety margin: such a job is handed back instead (uncounted), for another
 * worker to take at once. Once closed, nothing more is started from it.
 */
final class ReadyBuffer {
  private final ConcurrentLinkedQueue<Delivery> ready = new ConcurrentLinkedQueue<>();
  private final Ticker ticker;
  private volatile boolean closed;

  ReadyBuffer(Ticker ticker) {
    this.ticker = ticker;
  }

  /** Adds jobs; false (nothing added) once closed. */
  boolean addAll(List<Delivery> jobs) {
    if (closed) {
      return false;
    }
    ready.addAll(jobs);
    // why: a close between the check and the add must still not start these; it drains them
    return true;
  }

  boolean isEmpty() {
    return ready.isEmpty();
  }

  /**
   * The next job whose lease has at least {@code marginNanos} left, or null; jobs passed over on
   * the way are added to {@code expiring}, for the caller to hand back.
   */
  Delivery next(long marginNanos, List<Delivery> expiring) {
    Delivery d;
    while (!closed && (d = ready.poll()) != null) {
      if (d.leaseEndsNanos() - ticker.nanoTime() >= marginNanos) {
        return d;
      }
      expiring.add(d);
    }
    return null;
  }

  /** Closes the buffer and returns every job still in it. */
  List<Delivery> close() {
    closed = true;
    return drain();
  }

  List<Delivery> drain() {
    List<Delivery> left = new ArrayList<>();
    Delivery d;
    while ((d = ready.poll()) != null) {
      left.add(d);
    }
    return left;
  }
}
