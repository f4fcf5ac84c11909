package io.delayq.internal;

import io.delayq.JobHandler;
import io.delayq.NonRetryableJobException;
import io.delayq.WorkerOptions;
import io.delayq.Workers;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Workers of one queue in one process: a {@link ClaimLoop} fills a {@link ReadyBuffer}, handler
 * tasks take jobs from it and run them, and finished jobs are acked in batches per partition.
 *
 * <p>Closing runs in order: nothing more is started from the buffer; the loop stops claiming;
 * the jobs that never started go back at once, uncounted; running handlers get the shutdown
 * timeout to finish, their leases kept meanwhile and after, for as long as they run. A handler
 * that hangs at every try therefore still uses up its attempts (each time its process dies or its
 * lease otherwise ends) and reaches the dead set; it is never handed back uncounted.
 */
final class WorkerPool implements Workers {
  private static final Logger log = LoggerFactory.getLogger(WorkerPool.class);
  /**
   * How much work, in handler time, may wait in the local buffer beyond the running handlers. Fast
   * handlers then get whole batches per claim; slow ones get no more jobs than they can start, so
   * that idle workers elsewhere take the rest and no lease ticks away in a queue.
   */
  private static final long PREFETCH_HORIZON_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
  private static final long MAX_REJECTED_BACKOFF_MILLIS = 10_000;

  private final DelayqClient client;
  private final Settling settling;
  private final JobHandler handler;
  private final WorkerOptions options;
  private final Ticker ticker;
  private final Random random = new Random();
  private final ExecutorService executor;
  private final boolean ownsExecutor;
  private final ClaimLoop loop;
  private final Thread waker;
  private final ReadyBuffer buffer;
  private final Acker[] ackers;
  private final LeaseKeeper keeper;
  private final Set<Delivery> running = ConcurrentHashMap.newKeySet();
  private final AtomicInteger drainers = new AtomicInteger();
  /** Handler tasks given to the executor and not yet started; see {@link #reclaimDroppedTasks}. */
  private final Set<DrainTask> submitted = ConcurrentHashMap.newKeySet();
  /** The delivery the current thread is running, when it is one of this pool's handler threads. */
  private final ThreadLocal<Delivery> runningHere = new ThreadLocal<>();
  /** Jobs claimed and not yet settled or handed back: buffered plus running. */
  private final AtomicInteger held = new AtomicInteger();
  private final AtomicInteger pendingWrites = new AtomicInteger();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final CompletableFuture<Void> finished = new CompletableFuture<>();
  private final Waiter idle = new Waiter();
  /** While the loop waits for room: wake it when held jobs drop to this many. */
  private volatile int wakeAtHeld = -1;
  /** Moving average of handler run time; 0 until the first handler returns. */
  private volatile long averageHandlerNanos;
  private int rejections;

  private WorkerPool(DelayqClient client, Settling settling, JobHandler handler, WorkerOptions options, Ticker ticker) {
    this.client = client;
    this.settling = settling;
    this.handler = handler;
    this.options = options;
    this.ticker = ticker;
    this.buffer = new ReadyBuffer(ticker);
    this.keeper = client.leaseKeeper();
    int partitions = settling.queue().partitionCount();
    this.ackers = new Acker[partitions];
    for (int p = 0; p < partitions; p++) {
      ackers[p] = new Acker(settling, p, pendingWrites);
    }
    String queue = settling.queueName();
    if (options.executor() != null) {
      this.executor = options.executor();
      this.ownsExecutor = false;
    } else {
      AtomicInteger n = new AtomicInteger();
      this.executor =
          Executors.newFixedThreadPool(options.concurrency(), r -> {
            Thread t = new Thread(r, "delayq-worker-" + queue + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
          });
      this.ownsExecutor = true;
    }
    this.loop = new ClaimLoop(settling, options, ticker, random, this::room, this::dispatch);
    this.waker = new Thread(loop, "delayq-waker-" + queue);
    waker.setDaemon(true);
  }

  static WorkerPool start(DelayqClient client, Settling settling, JobHandler handler, WorkerOptions options, Ticker ticker) {
    WorkerPool pool = new WorkerPool(client, settling, handler, options, ticker);
    client.register(pool);
    client.wakeBus().register(settling.queue().wakeChannelName(), pool.loop);
    pool.waker.start();
    log.info("started {} worker(s) on queue '{}' ({} partition(s), lease {})",
        options.concurrency(), settling.queueName(), settling.queue().partitionCount(), options.lease());
    return pool;
  }

  @Override
  public String queue() {
    return settling.queueName();
  }

  @Override
  public int inFlight() {
    return running.size();
  }

  /** What the heartbeat reports for this pool. */
  io.delayq.WorkerProcess.QueueWork work() {
    return new io.delayq.WorkerProcess.QueueWork(settling.queueName(), options.concurrency(), running.size());
  }

  @Override
  public boolean isRunning() {
    return loop.isRunning();
  }

  /** Completes once closed and every handler has returned. */
  CompletableFuture<Void> finished() {
    return finished;
  }

  // ---- claiming ----

  /**
   * Jobs the loop may claim now. The pool holds at most one job per handler plus a buffer sized to
   * what the handlers finish within {@link #PREFETCH_HORIZON_NANOS} and within a quarter of the
   * lease, at most two claim batches. It claims again once half of that is free, so that claims
   * come in batches, or as soon as a handler has no job to take, whichever comes first.
   */
  private int room() {
    if (!buffer.isEmpty()) {
      // why: the loop calls this at least once a sweep; it revives handler tasks an executor dropped
      startDrainers();
    }
    long average = averageHandlerNanos;
    long prefetch = 0;
    if (average > 0) {
      long horizon = Math.min(PREFETCH_HORIZON_NANOS, options.lease().toNanos() / 4);
      prefetch = Math.min(2L * options.claimBatch(), options.concurrency() * horizon / Math.max(1, average));
    }
    int capacity = options.concurrency() + (int) prefetch;
    // why: waiting for half the capacity alone left handlers idle beside due jobs for as long as
    // the others ran: with slow handlers (no prefetch) and concurrency 4, three running jobs kept
    // the fourth handler idle until one of them returned
    int claimAtHeld = Math.max(capacity - Math.max(1, capacity / 2), options.concurrency() - 1);
    if (held.get() > claimAtHeld) {
      wakeAtHeld = claimAtHeld;
      // why: a handler may have finished between the read above and setting the threshold
      int now = held.get();
      return now <= claimAtHeld ? capacity - now : 0;
    }
    wakeAtHeld = -1;
    return capacity - held.get();
  }

  private void dispatch(List<Delivery> jobs) {
    held.addAndGet(jobs.size());
    if (!buffer.addAll(jobs) || closed.get()) {
      // why: close() has drained the buffer already or is about to; these must not wait for it
      handBack(closed.get() ? buffer.drain() : jobs);
      return;
    }
    startDrainers();
  }

  // ---- running handlers ----

  /** Longest a job may have left of its lease and still be started. */
  private long marginNanos() {
    long lease = options.lease().toNanos();
    return Math.min(lease / 2, Math.max(lease / 10, 2 * averageHandlerNanos));
  }

  /**
   * Makes sure enough handler tasks run to take the ready jobs: at most one per unit of
   * concurrency, each taking jobs until none is left. One task per batch rather than per job
   * spares a thread hand-off per job.
   */
  private void startDrainers() {
    reclaimDroppedTasks();
    while (!buffer.isEmpty() && !closed.get()) {
      int n = drainers.get();
      if (n >= options.concurrency()) {
        return;
      }
      if (drainers.compareAndSet(n, n + 1)) {
        DrainTask task = new DrainTask(ticker.nanoTime());
        submitted.add(task);
        try {
          executor.execute(task);
          rejections = 0;
        } catch (RejectedExecutionException e) {
          submitted.remove(task);
          drainers.decrementAndGet();
          long backoff = Math.min(MAX_REJECTED_BACKOFF_MILLIS, 1000L << Math.min(rejections++, 4));
          log.warn("the executor refused work for queue '{}'; handing the waiting jobs back and claiming"
              + " again in {} ms", settling.queueName(), backoff);
          handBack(buffer.drain());
          loop.pauseFor(backoff);
          return;
        }
      }
    }
  }

  /**
   * A handler task. An executor may drop one silently (a discard policy, a full queue that
   * swallows work): one not started within a sweep interval is written off, so that a fresh one
   * takes its place instead of the pool waiting for it for ever. Should it start after all, it
   * does nothing.
   */
  private final class DrainTask implements Runnable {
    private final long submittedAt;
    private final AtomicBoolean claimed = new AtomicBoolean();

    DrainTask(long submittedAt) {
      this.submittedAt = submittedAt;
    }

    @Override
    public void run() {
      if (!claimed.compareAndSet(false, true)) {
        return;
      }
      submitted.remove(this);
      drain();
    }

    boolean writeOffIfStale(long now) {
      return now - submittedAt > options.sweepInterval().toNanos() && claimed.compareAndSet(false, true);
    }
  }

  private void reclaimDroppedTasks() {
    if (submitted.isEmpty()) {
      return;
    }
    long now = ticker.nanoTime();
    for (DrainTask task : submitted) {
      if (task.writeOffIfStale(now)) {
        submitted.remove(task);
        drainers.decrementAndGet();
        log.warn("the executor of queue '{}' did not run a handler task within {}; starting another",
            settling.queueName(), options.sweepInterval());
      }
    }
  }

  private void drain() {
    try {
      List<Delivery> expiring = new ArrayList<>();
      Delivery next;
      while ((next = buffer.next(marginNanos(), expiring)) != null) {
        if (!expiring.isEmpty()) {
          handBackExpiring(expiring);
        }
        runJob(next);
      }
      if (!expiring.isEmpty()) {
        handBackExpiring(expiring);
      }
    } finally {
      drainers.decrementAndGet();
    }
    // why: a job added between the last poll and the decrement above would otherwise wait
    startDrainers();
  }

  private void handBackExpiring(List<Delivery> expiring) {
    log.debug("{} job(s) of queue '{}' waited in the buffer until their leases nearly ended; handed back",
        expiring.size(), settling.queueName());
    handBack(new ArrayList<>(expiring));
    expiring.clear();
  }

  private void runJob(Delivery job) {
    running.add(job);
    runningHere.set(job);
    if (closed.get() || options.keepLeaseWhileRunning()) {
      keeper.keep(job, settling, options.lease().toMillis());
    }
    Throwable failure = null;
    // why: only the user's handler is observed, and its scope is closed before the ack or nack
    // goes out, so none of delayq's own calls ever runs inside an observation
    Observations.Observed observed = client.observations().process(job);
    long started = ticker.nanoTime();
    try (Observations.Scope scope = observed.openScope()) {
      handler.handle(job);
    } catch (Throwable t) {
      failure = t;
    }
    long took = ticker.nanoTime() - started;
    observed.stop(failure);
    settling.queue().meters().handled(took, failure == null);
    long average = averageHandlerNanos;
    // why: a racy moving average is fine here; it only sizes the prefetch buffer
    averageHandlerNanos = average == 0 ? Math.max(1, took) : Math.max(1, average + (took - average) / 16);
    try {
      if (failure == null) {
        ackers[job.partition()].add(job);
      } else {
        fail(job, failure);
      }
    } finally {
      runningHere.remove();
      keeper.release(job);
      running.remove(job);
      int left = held.decrementAndGet();
      if (left <= wakeAtHeld) {
        loop.wake();
      }
      if (closed.get() && running.isEmpty()) {
        idle.wake();
      }
    }
  }

  private void fail(Delivery job, Throwable failure) {
    long retry = options.backoff().delayAfter(job.attempt(), random).toMillis();
    boolean giveUp = isNonRetryable(failure);
    String error = describe(failure) + (failure.getCause() == null ? "" : "; caused by " + describe(failure.getCause()));
    if (giveUp && !job.isLastAttempt()) {
      log.warn("job '{}' of queue '{}' failed on attempt {} of {} and is not retried; it goes to the dead-letter set",
          job.id(), settling.queueName(), job.attempt(), job.maxAttempts(), failure);
    } else if (job.isLastAttempt()) {
      log.warn("job '{}' of queue '{}' failed on its last attempt ({}); it goes to the dead-letter set",
          job.id(), settling.queueName(), job.attempt(), failure);
    } else {
      log.info("job '{}' of queue '{}' failed on attempt {} of {}; retry in {} ms: {}",
          job.id(), settling.queueName(), job.attempt(), job.maxAttempts(), retry, error);
    }
    track(settling.nack(job.id(), job.token(), retry, giveUp, error)).whenComplete((state, e) -> {
      if (e != null) {
        log.warn("could not record the failure of job '{}' (token {}); it runs again when its lease ends: {}",
            job.id(), job.token(), Errors.unwrap(e).toString());
      }
    });
  }

  private boolean isNonRetryable(Throwable failure) {
    if (failure instanceof NonRetryableJobException) {
      return true;
    }
    for (Class<? extends Throwable> type : options.nonRetryable()) {
      if (type.isInstance(failure)) {
        return true;
      }
    }
    return false;
  }

  private static String describe(Throwable t) {
    return t.getClass().getName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
  }

  /** Releases jobs this pool will not run, uncounted, batched per partition. */
  private void handBack(List<Delivery> jobs) {
    if (jobs.isEmpty()) {
      return;
    }
    Map<Integer, List<Delivery>> byPartition = new HashMap<>();
    for (Delivery d : jobs) {
      byPartition.computeIfAbsent(d.partition(), p -> new ArrayList<>()).add(d);
    }
    held.addAndGet(-jobs.size());
    byPartition.forEach((p, list) -> track(ClaimRound.handBack(settling, p, list)));
    loop.wake();
  }

  private <T> CompletableFuture<T> track(CompletableFuture<T> write) {
    pendingWrites.incrementAndGet();
    return write.whenComplete((v, e) -> pendingWrites.decrementAndGet());
  }

  // ---- closing ----

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    List<Delivery> unstarted = buffer.close();
    loop.stop();
    long leaseMillis = options.lease().toMillis();
    for (Delivery job : running) {
      keeper.keep(job, settling, leaseMillis);
    }
    handBack(unstarted);
    try {
      waker.join(client.settings().commandTimeout().toMillis() + 1_000);
      handBack(buffer.drain());
      if (ownsExecutor) {
        executor.shutdown();
      }
      long deadline = ticker.nanoTime() + options.shutdownTimeout().toNanos();
      while (othersRunning() > 0 && ticker.nanoTime() - deadline < 0) {
        idle.await(Math.min(10_000_000L, deadline - ticker.nanoTime()));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (!unstarted.isEmpty()) {
      log.info("{} job(s) of queue '{}' claimed but not started were handed back to the schedule",
          unstarted.size(), settling.queueName());
    }
    Delivery own = runningHere.get();
    List<String> stragglers = running.stream().filter(d -> d != own).map(Delivery::id).toList();
    if (!stragglers.isEmpty()) {
      log.warn("{} handler(s) of queue '{}' still run after the shutdown timeout of {}: {}. Their jobs keep"
          + " their leases until they return; no other worker starts them meanwhile", stragglers.size(),
          settling.queueName(), options.shutdownTimeout(), stragglers.size() > 20 ? stragglers.subList(0, 20) + "…" : stragglers);
      if (ownsExecutor && own == null) {
        executor.shutdownNow();
      }
    }
    client.wakeBus().unregister(settling.queue().wakeChannelName(), loop);
    CompletableFuture.runAsync(this::awaitStragglersThenFinish, runnable -> {
      if (running.isEmpty()) {
        runnable.run();
      } else {
        Thread t = new Thread(runnable, "delayq-closer-" + settling.queueName());
        t.setDaemon(true);
        t.start();
      }
    });
    log.info("stopped workers of queue '{}'", settling.queueName());
  }

  /** Handlers running now, not counting the one that called (a handler closing its own pool). */
  private int othersRunning() {
    return running.size() - (runningHere.get() != null ? 1 : 0);
  }

  private void awaitStragglersThenFinish() {
    try {
      while (!running.isEmpty()) {
        idle.await(100_000_000L);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    awaitPendingWrites();
    client.unregister(this);
    finished.complete(null);
  }

  private void awaitPendingWrites() {
    long deadline = ticker.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    try {
      while (pendingWrites.get() > 0 && ticker.nanoTime() - deadline < 0) {
        idle.await(1_000_000L);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (pendingWrites.get() > 0) {
      log.warn("{} ack(s), retries or hand-backs of queue '{}' were still unanswered at close; those jobs run"
          + " again when their leases end", pendingWrites.get(), settling.queueName());
    }
  }
}
