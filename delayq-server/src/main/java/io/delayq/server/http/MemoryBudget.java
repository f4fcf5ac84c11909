package io.delayq.server.http;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Bytes the server may hold at once for request bodies being read and answers not yet written,
 * over all connections. Each is bounded on its own (a 16 MiB batch, a 16 MiB claim answer), but a
 * few dozen at once would still fill a small heap; past this budget a request is answered 503
 * before its body is read, and an answer that does not fit is replaced by a 503 (a claim's jobs
 * go back, uncounted).
 */
final class MemoryBudget {
  /** Bodies and answers this small are never counted: they cannot add up to a heap. */
  static final int FREE_BYTES = 64 * 1024;
  /**
   * What a body costs while it is handled, per byte: the bytes read, their copy, and the parsed
   * JSON tree and job records, measured at about three times the body for a batch.
   */
  static final int BODY_FACTOR = 3;

  private final long total;
  private final AtomicLong available;

  MemoryBudget(long total) {
    this.total = total;
    this.available = new AtomicLong(total);
  }

  /** Half the heap the JVM may grow to. */
  static MemoryBudget ofHeap() {
    return new MemoryBudget(Runtime.getRuntime().maxMemory() / 2);
  }

  /**
   * Takes {@code bytes} from the budget if they fit.
   *
   * @return the bytes taken (0 for a small amount, which is free), or -1 when they do not fit
   */
  long tryTake(long bytes) {
    if (bytes <= FREE_BYTES) {
      return 0;
    }
    while (true) {
      long left = available.get();
      if (left < bytes) {
        return -1;
      }
      if (available.compareAndSet(left, left - bytes)) {
        return bytes;
      }
    }
  }

  void giveBack(long bytes) {
    if (bytes > 0) {
      available.addAndGet(bytes);
    }
  }

  long total() {
    return total;
  }
}
