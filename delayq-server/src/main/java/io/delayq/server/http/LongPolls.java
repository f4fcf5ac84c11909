package io.delayq.server.http;

import io.delayq.JobQueue;
import io.delayq.LeasedJob;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Claims that wait for work (HTTP long polls), as promises: a waiting claim holds no thread. It is
 * completed by a job becoming due, by its timer (with no jobs), or by its client hanging up; in
 * every case its permit is given back at once, and a job leased for a claim nobody waits for any
 * more is handed back, uncounted, as soon as it arrives.
 *
 * <p>All claims waiting on one queue with the same lease share one waiter: a single claim loop
 * (one thread, blocked in delayq-core's waiting claim, which is woken by the wake-up message and
 * the next due time) claims for all of them and shares the jobs out in arrival order. A thousand
 * idle workers on one queue thus cost Redis what one costs, not a thousand times that.
 */
final class LongPolls {
  private static final Logger log = LoggerFactory.getLogger(LongPolls.class);
  /** Longest single wait of a queue's claim loop: it re-checks who still waits at this interval. */
  static final Duration SLICE = Duration.ofSeconds(1);
  /** Bytes of answer (as JSON) after which a claim's answer takes no more jobs. */
  static final long ANSWER_BYTES = 16L << 20;
  /** Jobs in a claim's first chunk: at most 16 MiB even if every payload is at the 1 MiB limit. */
  static final int FIRST_CHUNK = 16;
  /** Jobs one round of a claim loop leases at most, shared among its waiting claims. */
  private static final int ROUND_JOBS = 1000;
  /** Queues (and leases) that may have claims waiting at once, each costing one thread. */
  static final int MAX_WAITING_QUEUES = 256;

  private final Semaphore permits;
  private final int limit;
  private final ScheduledExecutorService timers;
  private final ExecutorService loops;
  private final Map<String, Group> groups = new HashMap<>();
  private volatile boolean closing;

  /**
   * @param limit how many claims may wait at once; more are answered 429
   * @param timers where each claim's timer runs
   */
  LongPolls(int limit, ScheduledExecutorService timers) {
    this.limit = limit;
    this.permits = new Semaphore(limit);
    this.timers = timers;
    AtomicInteger next = new AtomicInteger(1);
    this.loops = Executors.newCachedThreadPool(task -> {
      Thread thread = new Thread(task, "delayq-long-poll-" + next.getAndIncrement());
      thread.setDaemon(true);
      return thread;
    });
  }

  /**
   * Claims up to {@code max} jobs, waiting up to {@code wait} for one to be due. Runs on a handler
   * thread: a claim that finds jobs at once, or may not wait, is answered there; one that waits
   * is answered later.
   *
   * @param gone completes when the client hangs up; the claim then stops waiting
   */
  CompletableFuture<List<LeasedJob>> claim(JobQueue queue, int max, Duration lease, Duration wait,
      CompletableFuture<Void> gone) {
    List<LeasedJob> first = queue.pull().claim(Math.min(max, FIRST_CHUNK), lease);
    if (!first.isEmpty() || wait.isZero() || closing) {
      return CompletableFuture.completedFuture(fit(queue, topUp(queue, first, max, lease)));
    }
    if (!permits.tryAcquire()) {
      throw ApiException.tooManyRequests(
          limit + " claims are already waiting on this server; retry in a second, with waitMs=0,"
              + " or run fewer waiting workers per server");
    }
    Waiter waiter = new Waiter(max);
    waiter.promise.whenComplete((jobs, error) -> permits.release());
    String key = queue.name() + "\u0000" + lease.toMillis();
    try {
      synchronized (groups) {
        Group group = groups.get(key);
        if (group == null) {
          if (groups.size() >= MAX_WAITING_QUEUES) {
            throw ApiException.tooManyRequests(MAX_WAITING_QUEUES + " queues already have claims waiting on this"
                + " server; retry in a second, with waitMs=0, or spread the queues over more servers");
          }
          group = new Group(key, queue, lease);
          groups.put(key, group);
          group.waiters.add(waiter);
          loops.execute(group::run);
        } else {
          group.waiters.add(waiter);
        }
      }
    } catch (RuntimeException e) {
      waiter.promise.complete(List.of());
      throw e;
    }
    timers.schedule(() -> waiter.promise.complete(List.of()), wait.toNanos(), TimeUnit.NANOSECONDS);
    gone.thenRun(() -> waiter.promise.complete(List.of()));
    return waiter.promise;
  }

  /** One waiting claim. */
  private static final class Waiter {
    final int max;
    final CompletableFuture<List<LeasedJob>> promise = new CompletableFuture<>();

    Waiter(int max) {
      this.max = max;
    }
  }

  /** The claims waiting on one queue with one lease, and the loop claiming for them. */
  private final class Group {
    final String key;
    final JobQueue queue;
    final Duration lease;
    /** Guarded by {@link #groups}. */
    final ArrayDeque<Waiter> waiters = new ArrayDeque<>();

    Group(String key, JobQueue queue, Duration lease) {
      this.key = key;
      this.queue = queue;
      this.lease = lease;
    }

    void run() {
      while (true) {
        List<Waiter> waiting = stillWaiting();
        if (waiting == null) {
          return;
        }
        int wanted = 0;
        for (Waiter w : waiting) {
          wanted = Math.min(ROUND_JOBS, wanted + Math.min(w.max, FIRST_CHUNK));
        }
        List<LeasedJob> jobs;
        try {
          jobs = queue.pull().claim(Math.max(1, wanted), lease, SLICE);
        } catch (RuntimeException e) {
          for (Waiter w : waiting) {
            w.promise.completeExceptionally(e);
          }
          continue;
        }
        if (!jobs.isEmpty()) {
          shareOut(jobs);
        }
      }
    }

    /** The claims still waiting, or null (and this group gone) when there are none. */
    private List<Waiter> stillWaiting() {
      synchronized (groups) {
        waiters.removeIf(w -> w.promise.isDone());
        if (waiters.isEmpty() || closing) {
          groups.remove(key, this);
          for (Waiter w : waiters) {
            w.promise.complete(List.of());
          }
          waiters.clear();
          return null;
        }
        return new ArrayList<>(waiters);
      }
    }

    /** Gives jobs to waiting claims in arrival order; what nobody takes goes back. */
    private void shareOut(List<LeasedJob> jobs) {
      int next = 0;
      while (next < jobs.size()) {
        Waiter w;
        synchronized (groups) {
          waiters.removeIf(x -> x.promise.isDone());
          w = waiters.poll();
        }
        if (w == null) {
          break;
        }
        int take = Math.min(Math.min(w.max, FIRST_CHUNK), jobs.size() - next);
        List<LeasedJob> mine = new ArrayList<>(jobs.subList(next, next + take));
        next += take;
        if (take == Math.min(w.max, FIRST_CHUNK) && w.max > take && !w.promise.isDone()) {
          mine = topUp(queue, mine, w.max, lease);
        }
        mine = fit(queue, mine);
        if (!w.promise.complete(mine)) {
          handBack(queue, mine);
        }
      }
      if (next < jobs.size()) {
        handBack(queue, jobs.subList(next, jobs.size()));
      }
    }
  }

  /**
   * The jobs that fit in {@link #ANSWER_BYTES} of answer, counted as JSON (always the first one);
   * the others go back at once, uncounted, for the next claim.
   */
  static List<LeasedJob> fit(JobQueue queue, List<LeasedJob> jobs) {
    long bytes = 0;
    for (int i = 0; i < jobs.size(); i++) {
      bytes += Views.answerBytes(jobs.get(i));
      if (bytes > ANSWER_BYTES && i > 0) {
        handBack(queue, jobs.subList(i, jobs.size()));
        return new ArrayList<>(jobs.subList(0, i));
      }
    }
    return jobs;
  }

  /**
   * Adds more jobs to a first chunk that came back full, in chunks, until {@code max} jobs or
   * about {@link #ANSWER_BYTES} of answer: one claim of a thousand large jobs cannot fill the heap.
   */
  static List<LeasedJob> topUp(JobQueue queue, List<LeasedJob> first, int max, Duration lease) {
    List<LeasedJob> jobs = new ArrayList<>(first);
    long bytes = 0;
    for (LeasedJob job : jobs) {
      bytes += Views.answerBytes(job);
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
        bytes += Views.answerBytes(job);
      }
      jobs.addAll(more);
      lastChunk = more.size();
    }
    return jobs;
  }

  /** Gives jobs back, uncounted, that no client will receive. */
  static void handBack(JobQueue queue, List<LeasedJob> jobs) {
    for (Iterator<LeasedJob> it = jobs.iterator(); it.hasNext(); ) {
      LeasedJob job = it.next();
      try {
        queue.pull().release(job.id(), job.token());
      } catch (RuntimeException e) {
        log.warn("could not hand back job '{}' of queue '{}' after its claim went unanswered; it runs"
            + " again when its lease ends: {}", job.id(), queue.name(), e.getMessage());
      }
    }
  }

  /** Completes every waiting claim with what it has (nothing), and makes new ones not wait. */
  void close() {
    closing = true;
    synchronized (groups) {
      for (Group group : groups.values()) {
        for (Waiter w : group.waiters) {
          w.promise.complete(List.of());
        }
      }
    }
    loops.shutdown();
  }

  /** Claims waiting now. */
  int waiting() {
    return limit - permits.availablePermits();
  }
}
