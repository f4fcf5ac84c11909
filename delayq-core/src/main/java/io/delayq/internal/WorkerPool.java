package io.delayq.internal;

import io.delayq.JobHandler;
import io.delayq.LeasedJob;
import io.delayq.WorkerOptions;
import io.delayq.Workers;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Workers of one queue in one process. A single waker thread claims due jobs in batches and hands
 * them to the handler threads; it never leases more jobs than there are free handlers. Between
 * claims it sleeps until the earliest next due time or lease deadline it has seen, at most one
 * sweep interval, and is woken early by a wake message when an earlier job is scheduled.
 */
final class WorkerPool implements Workers, WakeListener {
  private static final Logger log = LoggerFactory.getLogger(WorkerPool.class);
  private static final long MAX_ERROR_BACKOFF_MILLIS = 5_000;
  /**
   * How much work, in handler time, may wait in the local buffer beyond the running handlers. Fast
   * handlers then get whole batches per claim; slow ones get no more jobs than they can start, so
   * that idle workers elsewhere take the rest and no lease ticks away in a queue.
   */
  private static final long PREFETCH_HORIZON_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

  private final DelayqClient client;
  private final RedisJobQueue queue;
  private final JobHandler handler;
  private final WorkerOptions options;
  private final RedisClock clock;
  /** Claims, acks and retries go over the client's worker connection, never behind bulk schedules. */
  private final ScriptRunner scripts;
  private final Random random = new Random();
  private final ExecutorService executor;
  private final boolean ownsExecutor;
  private final Thread waker;
  private final Waiter waiter = new Waiter();
  private final int partitionCount;
  /** Per partition: the Redis time (ms) at which to claim next. */
  private final AtomicLongArray wakeAt;
  /** Per partition: the earliest due time announced since the current claim began. */
  private final AtomicLongArray announced;
  private final Acker[] ackers;
  /** Per partition: claims failed in a row; touched by the waker thread only. */
  private final int[] partitionFailures;
  /** Partitions whose last claim failed; when that is all of them, Redis as a whole is away. */
  private int failingPartitions;
  private final Map<RedisJobQueue.Attempt, LeasedJob> running = new ConcurrentHashMap<>();
  /** Claimed jobs not yet started, taken by up to {@code concurrency} drainer tasks. */
  private final ConcurrentLinkedQueue<Ready> ready = new ConcurrentLinkedQueue<>();
  private final AtomicInteger drainers = new AtomicInteger();
  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicInteger pendingWrites = new AtomicInteger();
  private final AtomicBoolean closed = new AtomicBoolean();
  /** While the waker waits for capacity: wake it when jobs in flight drop to this many. */
  private volatile int wakeAtInFlight = -1;
  /** Moving average of handler run time; 0 until the first handler returns. */
  private volatile long averageHandlerNanos;
  private volatile boolean claiming = true;

  private WorkerPool(
      DelayqClient client, RedisJobQueue queue, JobHandler handler, WorkerOptions options, Ticker ticker) {
    this.client = client;
    this.queue = queue;
    this.handler = handler;
    this.options = options;
    this.clock = new RedisClock(ticker);
    this.scripts = client.workerScripts();
    this.partitionCount = queue.partitions();
    this.wakeAt = new AtomicLongArray(partitionCount);
    this.announced = new AtomicLongArray(partitionCount);
    this.ackers = new Acker[partitionCount];
    this.partitionFailures = new int[partitionCount];
    for (int p = 0; p < partitionCount; p++) {
      ackers[p] = new Acker(p);
      announced.set(p, Long.MAX_VALUE);
    }
    if (options.executor() != null) {
      this.executor = options.executor();
      this.ownsExecutor = false;
    } else {
      AtomicInteger n = new AtomicInteger();
      this.executor =
          Executors.newFixedThreadPool(
              options.concurrency(),
              r -> {
                Thread t = new Thread(r, "delayq-worker-" + queue.name() + "-" + n.incrementAndGet());
                t.setDaemon(true);
                return t;
              });
      this.ownsExecutor = true;
    }
    this.waker = new Thread(this::runUntilClosed, "delayq-waker-" + queue.name());
    waker.setDaemon(true);
  }

  static WorkerPool start(
      DelayqClient client, RedisJobQueue queue, JobHandler handler, WorkerOptions options, Ticker ticker) {
    WorkerPool pool = new WorkerPool(client, queue, handler, options, ticker);
    client.register(pool);
    client.wakeBus().register(queue.wakeChannelName(), pool);
    pool.waker.start();
    log.info("started {} worker(s) on queue '{}' ({} partition(s), lease {})",
        options.concurrency(), queue.name(), pool.partitionCount, options.lease());
    return pool;
  }

  @Override
  public String queue() {
    return queue.name();
  }

  @Override
  public int inFlight() {
    return inFlight.get();
  }

  @Override
  public boolean isRunning() {
    return claiming;
  }

  /** A job due at {@code dueMillis} was scheduled on {@code partition} ahead of all others. */
  @Override
  public void onWake(int partition, long dueMillis) {
    if (partition < 0 || partition >= partitionCount) {
      return;
    }
    announced.accumulateAndGet(partition, dueMillis, Math::min);
    wakeAt.accumulateAndGet(partition, dueMillis, Math::min);
    waiter.wake();
  }

  // ---- the waker loop ----

  private void runUntilClosed() {
    int failures = 0;
    int start = partitionCount == 1 ? 0 : random.nextInt(partitionCount);
    while (claiming) {
      try {
        int capacity = capacity();
        int free = capacity - inFlight.get();
        // why: with a prefetch buffer, wait until half of it is free, so claims come in batches
        if (free <= 0 || free < capacity / 2) {
          wakeAtInFlight = capacity - Math.max(1, capacity / 2);
          if (inFlight.get() > wakeAtInFlight) {
            waiter.await(options.sweepInterval().toNanos());
          }
          wakeAtInFlight = -1;
          continue;
        }
        free -= claimDuePartitions(start, free);
        start = (start + 1) % partitionCount;
        if (failures > 0) {
          log.info("Redis answers again; workers of queue '{}' resume", queue.name());
          failures = 0;
        }
        if (free > 0 && claiming) {
          sleepUntilNextWake();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (Throwable t) {
        failures++;
        long backoff = Math.min(MAX_ERROR_BACKOFF_MILLIS, 100L << Math.min(failures - 1, 6));
        if (failures == 1) {
          log.warn("workers of queue '{}' cannot claim; retrying every ≤{} ms until Redis answers: {}",
              queue.name(), MAX_ERROR_BACKOFF_MILLIS, Errors.unwrap(t).toString());
        } else {
          log.debug("claim failed again ({} in a row): {}", failures, Errors.unwrap(t).toString());
        }
        try {
          waiter.await(backoff, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  /**
   * Jobs this pool may hold at once: one per handler, plus a buffer sized to what the handlers are
   * seen to finish within {@link #PREFETCH_HORIZON_NANOS}, at most two claim batches.
   */
  private int capacity() {
    long average = averageHandlerNanos;
    long prefetch =
        average == 0 ? 0 : Math.min(2L * options.claimBatch(), options.concurrency() * PREFETCH_HORIZON_NANOS / Math.max(1, average));
    return options.concurrency() + (int) prefetch;
  }

  /**
   * Claims from every partition whose wake-up time has come, sharing the free capacity among them.
   * The claims go out together and are answered in one round trip's time, so many partitions cost
   * no more latency than one. Returns how many jobs were started.
   */
  private int claimDuePartitions(int start, int free) throws Exception {
    long nowMillis = clock.isKnown() ? clock.redisMicros() / 1000 : Long.MIN_VALUE;
    List<Integer> due = new ArrayList<>();
    for (int i = 0; i < partitionCount; i++) {
      int p = (start + i) % partitionCount;
      if (!clock.isKnown() || wakeAt.get(p) <= nowMillis) {
        due.add(p);
      }
    }
    if (due.isEmpty()) {
      return 0;
    }
    int share = Math.min(options.claimBatch(), Math.max(1, free / due.size()));
    List<CompletableFuture<RedisJobQueue.Claimed>> replies = new ArrayList<>(due.size());
    long before = clock.localNanos();
    // why: the clock is read from the first reply to arrive, timed when it arrives, not when this
    // thread gets to it behind a slower partition
    CompletableFuture<long[]> firstArrival = new CompletableFuture<>();
    for (int i = 0; i < due.size() && i < free; i++) {
      announced.set(due.get(i), Long.MAX_VALUE);
      CompletableFuture<RedisJobQueue.Claimed> reply = queue.claim(scripts, due.get(i), share, options.lease().toMillis());
      reply.thenAccept(c -> firstArrival.complete(new long[] {c.redisMicros(), clock.localNanos()}));
      replies.add(reply);
    }
    long deadline = before + client.settings().commandTimeout().toNanos();
    int started = 0;
    int failed = 0;
    Exception failure = null;
    List<Integer> newlyFailing = new ArrayList<>(0);
    boolean observed = false;
    for (int i = 0; i < replies.size(); i++) {
      int p = due.get(i);
      RedisJobQueue.Claimed claimed;
      try {
        claimed = replies.get(i).get(Math.max(0, deadline - clock.localNanos()), TimeUnit.NANOSECONDS);
      } catch (ExecutionException | TimeoutException e) {
        // why: on a cluster one master may be down while the others serve; keep claiming theirs
        if (e instanceof TimeoutException) {
          handBackLate(replies.get(i));
        }
        failed++;
        failure = e;
        if (partitionFailed(p)) {
          newlyFailing.add(p);
        }
        continue;
      }
      if (!observed) {
        long[] first = firstArrival.getNow(new long[] {claimed.redisMicros(), clock.localNanos()});
        clock.observe(first[0], before, first[1]);
        observed = true;
      }
      if (partitionFailures[p] > 0) {
        log.info("partition {} of queue '{}' answers again", p, queue.name());
        partitionFailures[p] = 0;
        failingPartitions--;
      }
      started += accept(p, claimed);
    }
    startDrainers();
    if (!newlyFailing.isEmpty() && failingPartitions < partitionCount) {
      log.warn("partition(s) {} of queue '{}' cannot be claimed (their Redis node may be failing over); the"
          + " other partitions go on, these are retried every ≤{} ms: {}",
          newlyFailing, queue.name(), MAX_ERROR_BACKOFF_MILLIS, Errors.unwrap(failure).toString());
    }
    if (failed > 0 && failingPartitions == partitionCount) {
      // why: nothing answers; the loop's own backoff and its single warning take over
      throw failure;
    }
    return started;
  }

  /**
   * A claim this pool stopped waiting for may still be answered: the jobs it leased go back to the
   * schedule at once instead of waiting out their lease with nobody working on them.
   */
  private void handBackLate(CompletableFuture<RedisJobQueue.Claimed> reply) {
    reply.thenAccept(late -> {
      for (LeasedJob job : late.jobs()) {
        track(queue.release(scripts, job.id(), job.attempt()));
      }
    });
  }

  /** Backs off from one partition whose claim failed; true when it had been answering until now. */
  private boolean partitionFailed(int p) {
    int failures = ++partitionFailures[p];
    if (failures == 1) {
      failingPartitions++;
    }
    long backoff = Math.min(MAX_ERROR_BACKOFF_MILLIS, 100L << Math.min(failures - 1, 6));
    long nowMillis = clock.isKnown() ? clock.redisMicros() / 1000 : 0;
    wakeAt.set(p, nowMillis + backoff);
    return failures == 1;
  }

  /** Records a partition's next wake-up time and queues its claimed jobs; returns how many. */
  private int accept(int p, RedisJobQueue.Claimed claimed) {
    long nowMillis = claimed.redisMicros() / 1000;
    long sweepAt = nowMillis + options.sweepInterval().toMillis();
    long next = claimed.paused() || claimed.nextWakeMillis() < 0 ? sweepAt : Math.min(claimed.nextWakeMillis(), sweepAt);
    // why: set, then fold in what was announced during the claim, so no wake message is lost
    wakeAt.set(p, next);
    wakeAt.accumulateAndGet(p, announced.get(p), Math::min);
    for (LeasedJob job : claimed.jobs()) {
      dispatch(p, job);
    }
    return claimed.jobs().size();
  }

  private void sleepUntilNextWake() throws InterruptedException {
    long earliest = Long.MAX_VALUE;
    for (int p = 0; p < partitionCount; p++) {
      earliest = Math.min(earliest, wakeAt.get(p));
    }
    long nanos = Math.min(clock.nanosUntil(earliest), options.sweepInterval().toNanos());
    if (nanos > 0) {
      waiter.await(nanos);
    }
  }

  // ---- running handlers ----

  /** A claimed job waiting for a handler thread. */
  private record Ready(int partition, RedisJobQueue.Attempt key, LeasedJob job) {}

  private void dispatch(int p, LeasedJob job) {
    RedisJobQueue.Attempt key = new RedisJobQueue.Attempt(job.id(), job.attempt());
    inFlight.incrementAndGet();
    running.put(key, job);
    ready.add(new Ready(p, key, job));
  }

  /**
   * Makes sure enough handler tasks run to take the ready jobs: at most one per unit of
   * concurrency, each taking jobs until none is left. One task per batch rather than per job
   * spares a thread hand-off per job.
   */
  private void startDrainers() {
    while (!ready.isEmpty()) {
      int running = drainers.get();
      if (running >= options.concurrency()) {
        return;
      }
      if (drainers.compareAndSet(running, running + 1)) {
        try {
          executor.execute(this::drain);
        } catch (RejectedExecutionException e) {
          drainers.decrementAndGet();
          log.warn("executor refused work for queue '{}'; handing the waiting jobs back", queue.name());
          handBackReady();
          return;
        }
      }
    }
  }

  private void drain() {
    try {
      Ready next;
      while ((next = ready.poll()) != null) {
        runJob(next.partition(), next.key(), next.job());
      }
    } finally {
      drainers.decrementAndGet();
    }
    // why: a job added between the last poll and the decrement above would otherwise wait
    startDrainers();
  }

  private void handBackReady() {
    Ready next;
    while ((next = ready.poll()) != null) {
      if (running.remove(next.key(), next.job())) {
        inFlight.decrementAndGet();
        track(queue.release(scripts, next.key().id(), next.key().attempt()));
      }
    }
  }

  private void runJob(int p, RedisJobQueue.Attempt key, LeasedJob job) {
    Throwable failure = null;
    long started = clock.localNanos();
    try {
      handler.handle(job);
    } catch (Throwable t) {
      failure = t;
    }
    long took = clock.localNanos() - started;
    long average = averageHandlerNanos;
    // why: a racy moving average is fine here; it only sizes the prefetch buffer
    averageHandlerNanos = average == 0 ? Math.max(1, took) : Math.max(1, average + (took - average) / 16);
    try {
      // why: close() may have handed this job back already; then neither ack nor nack it
      if (running.remove(key, job)) {
        if (failure == null) {
          ackers[p].add(key);
        } else {
          fail(job, failure);
        }
      }
    } finally {
      int left = inFlight.decrementAndGet();
      if (left <= wakeAtInFlight) {
        waiter.wake();
      }
    }
  }

  private void fail(LeasedJob job, Throwable failure) {
    long retry = options.backoff().delayAfter(job.attempt(), random).toMillis();
    String error = failure.getClass().getName() + (failure.getMessage() == null ? "" : ": " + failure.getMessage());
    if (job.isLastAttempt()) {
      log.warn("job '{}' of queue '{}' failed on its last attempt ({}); it goes to the dead-letter set",
          job.id(), queue.name(), job.attempt(), failure);
    } else {
      log.info("job '{}' of queue '{}' failed on attempt {} of {}; retry in {} ms: {}",
          job.id(), queue.name(), job.attempt(), job.maxAttempts(), retry, error);
    }
    track(queue.nackAsync(scripts, job.id(), job.attempt(), retry, false, error))
        .whenComplete((state, e) -> {
          if (e != null) {
            log.warn("could not record the failure of job '{}' (attempt {}); it runs again when its lease ends: {}",
                job.id(), job.attempt(), Errors.unwrap(e).toString());
          }
        });
  }

  private <T> CompletableFuture<T> track(CompletableFuture<T> write) {
    pendingWrites.incrementAndGet();
    return write.whenComplete((v, e) -> pendingWrites.decrementAndGet());
  }

  /**
   * Batches acks per partition: while one ack call is in flight, finished jobs gather, and go
   * together in the next call. Busy workers send few calls; an idle one acks at once.
   */
  private final class Acker {
    private final int partition;
    private final ConcurrentLinkedQueue<RedisJobQueue.Attempt> pending = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean sending = new AtomicBoolean();

    Acker(int partition) {
      this.partition = partition;
    }

    void add(RedisJobQueue.Attempt attempt) {
      pendingWrites.incrementAndGet();
      pending.add(attempt);
      flush();
    }

    private void flush() {
      while (!pending.isEmpty() && sending.compareAndSet(false, true)) {
        List<RedisJobQueue.Attempt> batch = new ArrayList<>();
        RedisJobQueue.Attempt a;
        while (batch.size() < 500 && (a = pending.poll()) != null) {
          batch.add(a);
        }
        if (batch.isEmpty()) {
          sending.set(false);
          continue;
        }
        queue.ackAll(scripts, partition, batch).whenComplete((done, error) -> {
          if (error != null) {
            log.warn("could not ack {} job(s) of queue '{}'; they run again when their leases end: {}",
                batch.size(), queue.name(), Errors.unwrap(error).toString());
          } else {
            for (int i = 0; i < batch.size(); i++) {
              if (done.get(i) != 1L) {
                log.warn("ack of job '{}' attempt {} of queue '{}' was refused: its lease had expired,"
                    + " so it is delivered again; use a longer lease or extend it",
                    batch.get(i).id(), batch.get(i).attempt(), queue.name());
              }
            }
          }
          pendingWrites.addAndGet(-batch.size());
          sending.set(false);
          flush();
        });
      }
    }
  }

  // ---- closing ----

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    claiming = false;
    waiter.wake();
    try {
      waker.join(client.settings().commandTimeout().toMillis() + 1_000);
      if (ownsExecutor) {
        executor.shutdown();
      }
      long deadline = clock.localNanos() + options.shutdownTimeout().toNanos();
      while (inFlight.get() > 0 && clock.localNanos() < deadline) {
        waiter.await(Math.min(10_000_000L, deadline - clock.localNanos()));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    handBackReady();
    handBackUnfinished();
    if (ownsExecutor) {
      executor.shutdownNow();
    }
    awaitPendingWrites();
    client.wakeBus().unregister(queue.wakeChannelName(), this, false);
    client.unregister(this);
    log.info("stopped workers of queue '{}'", queue.name());
  }

  private void handBackUnfinished() {
    List<String> handedBack = new ArrayList<>();
    for (Map.Entry<RedisJobQueue.Attempt, LeasedJob> e : running.entrySet()) {
      if (running.remove(e.getKey(), e.getValue())) {
        try {
          queue.await(queue.release(scripts, e.getKey().id(), e.getKey().attempt()), e.getKey().id(), e.getKey().attempt());
          handedBack.add(e.getKey().id());
        } catch (RuntimeException failure) {
          log.warn("could not hand back job '{}'; it runs again when its lease ends: {}",
              e.getKey().id(), failure.toString());
        }
      }
    }
    if (!handedBack.isEmpty()) {
      log.warn("{} job(s) of queue '{}' did not finish within the shutdown timeout of {} and were"
          + " handed back to the schedule: {}", handedBack.size(), queue.name(), options.shutdownTimeout(),
          handedBack.size() > 20 ? handedBack.subList(0, 20) + "…" : handedBack);
    }
  }

  private void awaitPendingWrites() {
    long deadline = clock.localNanos() + TimeUnit.SECONDS.toNanos(5);
    try {
      while (pendingWrites.get() > 0 && clock.localNanos() < deadline) {
        waiter.await(1_000_000L);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (pendingWrites.get() > 0) {
      log.warn("{} ack(s) or retries of queue '{}' were still unanswered at close; those jobs run"
          + " again when their leases end", pendingWrites.get(), queue.name());
    }
  }
}
