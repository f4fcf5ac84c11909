package io.delayq.server.http;

import io.delayq.JobQueue;
import io.delayq.LeasedJob;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Semaphore;

/**
 * Claims that wait for work (HTTP long polls). Each holds an HTTP thread while it waits, so only so
 * many may wait at once; and at shutdown every waiting claim returns within one {@link #SLICE}
 * with whatever it has, so that draining the server takes about a second, not a minute.
 */
final class LongPolls {
  /**
   * Longest single wait handed to the core. // why: waking a claim by interrupting its thread could
   * land while the thread is inside a Redis call, after the script had leased jobs to nobody; a
   * wait cut into slices that check {@link #closing} between them loses nothing. The core itself
   * re-checks at this interval, so slicing costs no extra round trips worth counting.
   */
  static final Duration SLICE = Duration.ofSeconds(1);

  private final Semaphore waiting;
  private final int limit;
  private volatile boolean closing;

  /** @param limit how many claims may wait at once; more are answered 429 */
  LongPolls(int limit) {
    this.limit = limit;
    this.waiting = new Semaphore(limit);
  }

  /** Claims up to {@code max} jobs, waiting up to {@code wait} for one to be due. */
  List<LeasedJob> claim(JobQueue queue, int max, Duration lease, Duration wait) {
    if (wait.isZero() || closing) {
      return queue.claim(max, lease);
    }
    if (!waiting.tryAcquire()) {
      throw ApiException.tooManyRequests(
          limit + " claims are already waiting on this server; retry in a second, with waitMs=0,"
              + " or run fewer waiting workers per server");
    }
    try {
      long deadline = System.nanoTime() + wait.toNanos();
      while (true) {
        long left = deadline - System.nanoTime();
        Duration slice = Duration.ofNanos(Math.max(0, Math.min(left, SLICE.toNanos())));
        List<LeasedJob> jobs = queue.claim(max, lease, slice);
        if (!jobs.isEmpty() || closing || deadline - System.nanoTime() <= 0) {
          return jobs;
        }
      }
    } finally {
      waiting.release();
    }
  }

  /** Makes waiting claims return at their next slice, and new ones not wait. */
  void close() {
    closing = true;
  }

  /** Claims waiting now. */
  int waiting() {
    return limit - waiting.availablePermits();
  }
}
