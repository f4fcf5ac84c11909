package io.delayq.server.http;

import io.delayq.JobQueue;
import io.delayq.LeasedJob;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Claims that wait for work (HTTP long polls). Each holds an HTTP thread while it waits, so only so
 * many may wait at once; and at shutdown every waiting claim returns within one {@link #SLICE}
 * with whatever it has, so that draining the server takes about a second, not a minute.
 */
final class LongPolls {
  private static final Logger log = LoggerFactory.getLogger(LongPolls.class);
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

  /**
   * Claims up to {@code max} jobs, waiting up to {@code wait} for one to be due. The answer is
   * built in chunks and stops growing past about {@link #ANSWER_BYTES} of payload, so one claim of
   * a thousand large jobs cannot fill the heap; the jobs left are there for the next claim.
   */
  List<LeasedJob> claim(JobQueue queue, int max, Duration lease, Duration wait) {
    List<LeasedJob> jobs = firstChunk(queue, Math.min(max, FIRST_CHUNK), lease, wait);
    return topUp(queue, jobs, max, lease);
  }

  /** Payload bytes after which a claim's answer takes no more jobs. */
  static final long ANSWER_BYTES = 16L << 20;
  /** Jobs in the first chunk: at most 16 MiB even if every payload is at the 1 MiB limit. */
  static final int FIRST_CHUNK = 16;

  private static List<LeasedJob> topUp(JobQueue queue, List<LeasedJob> first, int max, Duration lease) {
    List<LeasedJob> jobs = new ArrayList<>(first);
    long bytes = 0;
    for (LeasedJob job : jobs) {
      bytes += job.payload().length;
    }
    int lastChunk = first.size();
    int wanted = Math.min(max, FIRST_CHUNK);
    while (lastChunk == wanted && jobs.size() < max && bytes < ANSWER_BYTES) {
      long average = Math.max(1024, bytes / Math.max(1, jobs.size()));
      wanted = (int) Math.max(1, Math.min(max - jobs.size(), (ANSWER_BYTES - bytes) / (2 * average)));
      List<LeasedJob> more;
      try {
        more = queue.pull().claim(wanted, lease);
      } catch (RuntimeException e) {
        // why: the jobs already leased are this worker's; failing the request now would leave them
        // held by nobody until their leases end, each costing an attempt
        log.warn("claim on queue '{}': a top-up claim failed after {} job(s) were leased; answering with"
            + " those: {}", queue.name(), jobs.size(), e.getMessage());
        break;
      }
      for (LeasedJob job : more) {
        bytes += job.payload().length;
      }
      jobs.addAll(more);
      lastChunk = more.size();
    }
    return jobs;
  }

  private List<LeasedJob> firstChunk(JobQueue queue, int max, Duration lease, Duration wait) {
    if (wait.isZero() || closing) {
      return queue.pull().claim(max, lease);
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
        List<LeasedJob> jobs = queue.pull().claim(max, lease, slice);
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
