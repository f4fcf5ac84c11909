package io.delayq.checker;

import static org.awaitility.Awaitility.await;

import io.delayq.Backoff;
import io.delayq.Delayq;
import io.delayq.DuplicatePolicy;
import io.delayq.InvalidRequestException;
import io.delayq.JobActiveException;
import io.delayq.JobHandler;
import io.delayq.JobInfo;
import io.delayq.JobNotFoundException;
import io.delayq.JobQueue;
import io.delayq.JobRequest;
import io.delayq.JobState;
import io.delayq.LeaseExpiredException;
import io.delayq.LeasedJob;
import io.delayq.OutcomeUnknownException;
import io.delayq.PullConsumer;
import io.delayq.QueueStats;
import io.delayq.RedisUnavailableException;
import io.delayq.ScheduledJob;
import io.delayq.WorkerOptions;
import io.delayq.Workers;
import io.delayq.checker.History.Delivered;
import io.delayq.checker.History.Kind;
import io.delayq.checker.History.Op;
import io.delayq.checker.History.Outcome;
import io.delayq.internal.Ids;
import io.delayq.internal.Keys;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.awaitility.core.ConditionTimeoutException;

/**
 * The randomized run: several clients of one Redis (or one Redis Cluster) work one queue at once
 * for a bounded time, with every call recorded in a {@link History}; then, with the faults off, a
 * drain worker consumes whatever is left, and the end state of every id is read back.
 *
 * <p>Each test thread picks its operations from its own {@link Random}, seeded from the run's
 * seed, so a seed reproduces the mix of operations (the interleaving is the machine's). Handlers
 * pick their behaviour from the seed and the delivery's token.
 */
final class Workload {
  /** What to run against. */
  record Config(
      String label,
      String redisUrl,
      boolean cluster,
      Duration duration,
      long seed,
      int clients,
      int threads,
      int ids,
      int partitions,
      String queue,
      int impatientClients) {}

  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(3);
  /**
   * The last {@code impatientClients} clients wait only 1 to 6 ms for Redis (drawn again at every
   * reopen), so that some of their calls time out while Redis still runs them: real unknown outcomes.
   */
  private static final int IMPATIENT_MAX_MS = 6;
  private static final int MAX_POOLS_PER_CLIENT = 2;
  private static final int PAST_KEPT = 200;

  /** One client slot; its client is replaced, under the write lock, when the run closes and reopens it. */
  private static final class Slot {
    final int index;
    final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    Delayq delayq;
    JobQueue queue;
    PullConsumer pull;
    final List<RunningPool> pools = new ArrayList<>();

    Slot(int index) {
      this.index = index;
    }
  }

  private record RunningPool(History.Pool rec, Workers workers) {}

  private record Held(Delivered rec, LeasedJob job) {}

  private final Config cfg;
  private final History history;
  private final Slot[] slots;
  private final ConcurrentLinkedDeque<Held> held = new ConcurrentLinkedDeque<>();
  private final List<Held> past = new ArrayList<>();
  private final AtomicInteger handlersRunning = new AtomicInteger();
  private final AtomicInteger payloads = new AtomicInteger();
  private final AtomicInteger batches = new AtomicInteger();
  private final AtomicLong restarts = new AtomicLong();
  private volatile long deadline;

  Workload(Config cfg) {
    this.cfg = cfg;
    this.history = new History(cfg.label(), cfg.seed());
    this.slots = new Slot[cfg.clients()];
    for (int i = 0; i < slots.length; i++) {
      slots[i] = new Slot(i);
    }
  }

  History history() {
    return history;
  }

  /** Runs the faults for the configured time, drains, reads the end state; returns the history. */
  History run() {
    deadline = System.nanoTime() + cfg.duration().toNanos();
    for (Slot slot : slots) {
      open(slot);
    }
    List<Thread> threads = new ArrayList<>();
    List<Throwable> crashes = new java.util.concurrent.CopyOnWriteArrayList<>();
    for (int t = 0; t < cfg.threads(); t++) {
      Random random = new Random(cfg.seed() * 1_000_003L + t);
      Thread thread = new Thread(() -> operate(random), "checker-" + cfg.label() + "-" + t);
      thread.setUncaughtExceptionHandler((th, e) -> crashes.add(e));
      threads.add(thread);
      thread.start();
    }
    for (Thread thread : threads) {
      try {
        thread.join(cfg.duration().toMillis() + 60_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while the test threads ran", e);
      }
      if (thread.isAlive()) {
        throw new IllegalStateException(thread.getName() + " did not stop within a minute of the run's end");
      }
    }
    if (!crashes.isEmpty()) {
      IllegalStateException e = new IllegalStateException("a test thread crashed: " + crashes.get(0), crashes.get(0));
      crashes.stream().skip(1).forEach(e::addSuppressed);
      throw e;
    }
    for (Slot slot : slots) {
      closePools(slot);
    }
    drain();
    readFinals();
    for (Slot slot : slots) {
      closeClient(slot);
    }
    return history;
  }

  long restarts() {
    return restarts.get();
  }

  // ---- clients ----

  private void open(Slot slot) {
    for (int attempt = 0; attempt < 5 && slot.delayq == null; attempt++) {
      openOnce(slot);
    }
  }

  private void openOnce(Slot slot) {
    Op op = history.begin(Kind.CLIENT_OPEN, slot.index);
    boolean impatient = impatient(slot) && System.nanoTime() - deadline < 0;
    Duration timeout = impatient
        ? Duration.ofMillis(1 + new Random(cfg.seed() + 31L * slot.index + restarts.get()).nextInt(IMPATIENT_MAX_MS))
        : COMMAND_TIMEOUT;
    op.detail = "commandTimeout " + timeout.toMillis() + " ms";
    perform(op, () -> {
      Delayq delayq = Delayq.builder().redisUrl(cfg.redisUrl()).commandTimeout(timeout).build();
      try {
        slot.queue = delayq.queue(cfg.queue(), cfg.partitions());
        slot.pull = slot.queue.pull();
        slot.delayq = delayq;
      } catch (RuntimeException e) {
        delayq.close();
        throw e;
      }
      return null;
    });
    history.add(op);
  }

  /** Closes the slot's client (and with it its pools); the caller holds the write lock, or the run is over. */
  private void closeClient(Slot slot) {
    if (slot.delayq == null) {
      return;
    }
    List<RunningPool> pools;
    synchronized (slot.pools) {
      pools = new ArrayList<>(slot.pools);
      slot.pools.clear();
    }
    long start = System.nanoTime();
    for (RunningPool p : pools) {
      p.rec().closeStart = start;
    }
    Op op = history.begin(Kind.CLIENT_CLOSE, slot.index);
    op.start = start;
    Delayq delayq = slot.delayq;
    perform(op, () -> {
      delayq.close();
      return null;
    });
    for (RunningPool p : pools) {
      p.rec().closeEnd = op.end;
    }
    history.add(op);
    slot.delayq = null;
    slot.queue = null;
    slot.pull = null;
  }

  private void restart(Slot slot) {
    slot.lock.writeLock().lock();
    try {
      restarts.incrementAndGet();
      closeClient(slot);
      open(slot);
    } finally {
      slot.lock.writeLock().unlock();
    }
  }

  /** Runs {@code action} with some open client, holding its read lock; false when none was free. */
  private boolean withSlot(Random random, java.util.function.Consumer<Slot> action) {
    int first = random.nextInt(slots.length);
    for (int i = 0; i < slots.length; i++) {
      Slot slot = slots[(first + i) % slots.length];
      Lock lock = slot.lock.readLock();
      if (!lock.tryLock()) {
        continue;
      }
      try {
        if (slot.delayq == null) {
          continue;
        }
        action.accept(slot);
        return true;
      } finally {
        lock.unlock();
      }
    }
    return false;
  }

  // ---- the faults ----

  private void operate(Random random) {
    while (System.nanoTime() - deadline < 0) {
      // why: think time between calls, so that a 20 s run is thousands of calls rather than a flood
      LockSupport.parkNanos(random.nextInt(3_000_000));
      int roll = random.nextInt(1000);
      if (roll < 170) {
        withSlot(random, slot -> schedule(slot, random));
      } else if (roll < 200) {
        withSlot(random, slot -> scheduleAll(slot, random));
      } else if (roll < 260) {
        withSlot(random, slot -> reschedule(slot, random));
      } else if (roll < 310) {
        withSlot(random, slot -> cancel(slot, random));
      } else if (roll < 350) {
        withSlot(random, slot -> get(slot, random));
      } else if (roll < 360) {
        withSlot(random, this::stats);
      } else if (roll < 550) {
        withSlot(random, slot -> claim(slot, random));
      } else if (roll < 850) {
        Held h = takeHeld(random);
        if (h == null) {
          withSlot(random, slot -> claim(slot, random));
        } else if (roll < 650) {
          withSlot(random, slot -> ack(slot, h));
          retire(h);
        } else if (roll < 700) {
          withSlot(random, slot -> nack(slot, h, random));
          retire(h);
        } else if (roll < 760) {
          boolean kept = withSlot(random, slot -> extend(slot, h, random));
          if (kept) {
            held.addLast(h);
          } else {
            retire(h);
          }
        } else if (roll < 800) {
          withSlot(random, slot -> release(slot, h));
          retire(h);
        } else {
          // do nothing: the lease runs out and the job is delivered again
          retire(h);
        }
      } else if (roll < 910) {
        Held h = staleOrCurrent(random);
        if (h != null) {
          withSlot(random, slot -> {
            switch (random.nextInt(4)) {
              case 0 -> ack(slot, h);
              case 1 -> nack(slot, h, random);
              case 2 -> extend(slot, h, random);
              default -> release(slot, h);
            }
          });
        }
      } else if (roll < 925) {
        withSlot(random, slot -> togglePool(slot, random));
      } else if (roll < 927) {
        restart(slots[random.nextInt(slots.length)]);
      }
    }
  }

  private String randomId(Random random) {
    return "j" + random.nextInt(cfg.ids());
  }

  private boolean impatient(Slot slot) {
    return slot.index >= cfg.clients() - cfg.impatientClients();
  }

  /**
   * An id for a by-id call. An impatient client's calls may have run at any time after they started,
   * which leaves the model unsure of every later state of the id; so it keeps to the first half of
   * the ids, and the other half keep the strongest checks.
   */
  private String randomId(Slot slot, Random random) {
    return impatient(slot) ? "j" + random.nextInt(Math.max(1, cfg.ids() / 2)) : randomId(random);
  }

  private String newPayload() {
    return cfg.label() + "-p" + payloads.incrementAndGet();
  }

  private JobRequest request(Slot slot, Op op, Random random) {
    op.id = randomId(slot, random);
    op.payload = newPayload();
    op.delayMs = random.nextInt(301);
    op.policy = random.nextInt(10) < 6 ? DuplicatePolicy.REPLACE : DuplicatePolicy.KEEP;
    op.maxAttempts = 1 + random.nextInt(4);
    return JobRequest.of(op.payload)
        .withId(op.id)
        .withDelay(Duration.ofMillis(op.delayMs))
        .withMaxAttempts(op.maxAttempts)
        .withOnDuplicate(op.policy);
  }

  private static void fill(Op op, ScheduledJob answer) {
    op.scheduled = answer.outcome();
    op.runAtMs = answer.runAt() == null ? -1 : answer.runAt().toEpochMilli();
  }

  private void schedule(Slot slot, Random random) {
    Op op = history.begin(Kind.SCHEDULE, slot.index);
    JobRequest request = request(slot, op, random);
    op.start = System.nanoTime();
    ScheduledJob answer = perform(op, () -> slot.queue.schedule(request));
    if (answer != null) {
      fill(op, answer);
    }
    history.add(op);
  }

  private void scheduleAll(Slot slot, Random random) {
    int n = 2 + random.nextInt(2);
    int batch = batches.incrementAndGet();
    List<Op> ops = new ArrayList<>();
    List<JobRequest> requests = new ArrayList<>();
    List<String> ids = new ArrayList<>();
    while (ops.size() < n) {
      Op op = history.begin(Kind.SCHEDULE, slot.index);
      JobRequest request = request(slot, op, random);
      if (ids.contains(op.id)) {
        continue;
      }
      op.batch = batch;
      ids.add(op.id);
      ops.add(op);
      requests.add(request);
    }
    long start = System.nanoTime();
    List<ScheduledJob> answers = null;
    Outcome outcome = Outcome.OK;
    String detail = null;
    List<ScheduledJob> partial = null;
    try {
      answers = slot.queue.scheduleAll(requests);
    } catch (JobActiveException e) {
      partial = e.batchResults();
      detail = "JobActiveException (batch)";
    } catch (OutcomeUnknownException e) {
      outcome = Outcome.UNKNOWN;
      detail = describe(e);
    } catch (RedisUnavailableException e) {
      outcome = Outcome.FAILED;
      detail = describe(e);
    } catch (InvalidRequestException e) {
      throw new AssertionError("the checker built an invalid request", e);
    } catch (RuntimeException e) {
      outcome = Outcome.UNKNOWN;
      detail = describe(e);
      history.unexpected.add(detail);
    }
    long end = System.nanoTime();
    for (int i = 0; i < ops.size(); i++) {
      Op op = ops.get(i);
      op.start = start;
      op.end = end;
      op.detail = detail;
      if (answers != null) {
        op.outcome = Outcome.OK;
        fill(op, answers.get(i));
      } else if (partial != null) {
        ScheduledJob answer = i < partial.size() ? partial.get(i) : null;
        if (answer == null) {
          op.outcome = partial.isEmpty() ? Outcome.UNKNOWN : Outcome.REFUSED;
        } else {
          op.outcome = Outcome.OK;
          fill(op, answer);
        }
      } else {
        op.outcome = outcome;
      }
      history.add(op);
    }
  }

  private void reschedule(Slot slot, Random random) {
    Op op = history.begin(Kind.RESCHEDULE, slot.index);
    op.id = randomId(slot, random);
    op.delayMs = random.nextInt(301);
    op.start = System.nanoTime();
    ScheduledJob answer = perform(op, () -> slot.queue.reschedule(op.id, Duration.ofMillis(op.delayMs)));
    if (answer != null) {
      op.runAtMs = answer.runAt().toEpochMilli();
    }
    history.add(op);
  }

  private void cancel(Slot slot, Random random) {
    Op op = history.begin(Kind.CANCEL, slot.index);
    op.id = randomId(slot, random);
    op.start = System.nanoTime();
    Boolean removed = perform(op, () -> slot.queue.cancel(op.id));
    if (Boolean.FALSE.equals(removed)) {
      op.outcome = Outcome.REFUSED;
      op.detail = "false: no scheduled job";
    }
    history.add(op);
  }

  private void get(Slot slot, Random random) {
    Op op = history.begin(Kind.GET, slot.index);
    op.id = randomId(random);
    op.start = System.nanoTime();
    Optional<JobInfo> info = perform(op, () -> slot.queue.get(op.id));
    if (info != null) {
      op.detail = info.map(i -> i.state() + " " + i.payloadAsString() + " " + i.attempts() + "/" + i.maxAttempts())
          .orElse("absent");
    }
    history.add(op);
  }

  private void stats(Slot slot) {
    Op op = history.begin(Kind.STATS, slot.index);
    QueueStats stats = perform(op, () -> slot.queue.admin().stats());
    if (stats != null) {
      op.detail = stats.toString();
    }
    history.add(op);
  }

  private void claim(Slot slot, Random random) {
    Op op = history.begin(Kind.CLAIM, slot.index);
    op.max = 1 + random.nextInt(3);
    op.leaseMs = 200 + random.nextInt(601);
    Duration lease = Duration.ofMillis(op.leaseMs);
    boolean wait = random.nextInt(10) < 3;
    Duration waitFor = Duration.ofMillis(random.nextInt(100));
    op.start = System.nanoTime();
    List<LeasedJob> jobs = perform(op, () -> wait ? slot.pull.claim(op.max, lease, waitFor) : slot.pull.claim(op.max, lease));
    if (jobs != null) {
      for (LeasedJob job : jobs) {
        Delivered d = new Delivered();
        d.seq = history.nextSeq();
        d.source = History.Source.PULL;
        d.client = slot.index;
        d.claimOp = op.seq;
        describe(d, job, op.leaseMs);
        d.claimStart = op.start;
        d.claimEnd = op.end;
        history.add(d);
        op.deliveries.add(d.seq);
        held.addLast(new Held(d, job));
      }
    }
    history.add(op);
  }

  private static void describe(Delivered d, LeasedJob job, long leaseMs) {
    d.id = job.id();
    d.token = job.token();
    d.attempt = job.attempt();
    d.maxAttempts = job.maxAttempts();
    d.payload = job.payloadAsString();
    d.runAtMs = job.runAt().toEpochMilli();
    d.leaseMs = leaseMs;
    d.claimMs = job.leaseUntil().toEpochMilli() - leaseMs;
  }

  private Op settleOp(Kind kind, Slot slot, Held h) {
    Op op = history.begin(kind, slot.index);
    op.id = h.rec().id;
    op.token = h.rec().token;
    op.delivery = h.rec().seq;
    return op;
  }

  private void ack(Slot slot, Held h) {
    Op op = settleOp(Kind.ACK, slot, h);
    op.start = System.nanoTime();
    perform(op, () -> {
      slot.pull.ack(op.id, op.token);
      return null;
    });
    history.add(op);
  }

  private void nack(Slot slot, Held h, Random random) {
    Op op = settleOp(Kind.NACK, slot, h);
    op.retryMs = random.nextInt(301);
    op.start = System.nanoTime();
    JobState state = perform(op, () -> slot.pull.nack(op.id, op.token, Duration.ofMillis(op.retryMs), "checker nack"));
    op.nackState = state;
    history.add(op);
  }

  private void extend(Slot slot, Held h, Random random) {
    Op op = settleOp(Kind.EXTEND, slot, h);
    op.leaseMs = 200 + random.nextInt(601);
    op.start = System.nanoTime();
    Instant until = perform(op, () -> slot.pull.extendLease(op.id, op.token, Duration.ofMillis(op.leaseMs)));
    if (until != null) {
      op.untilMs = until.toEpochMilli();
    }
    history.add(op);
  }

  private void release(Slot slot, Held h) {
    Op op = settleOp(Kind.RELEASE, slot, h);
    op.start = System.nanoTime();
    Boolean released = perform(op, () -> slot.pull.release(op.id, op.token));
    if (Boolean.FALSE.equals(released)) {
      op.outcome = Outcome.REFUSED;
      op.detail = "false: no longer held";
    }
    history.add(op);
  }

  private Held takeHeld(Random random) {
    return random.nextBoolean() ? held.pollFirst() : held.pollLast();
  }

  private void retire(Held h) {
    synchronized (past) {
      past.add(h);
      if (past.size() > PAST_KEPT) {
        past.remove(0);
      }
    }
  }

  /** A former delivery's token (usually stale by now), or a current one that its owner may be settling right now. */
  private Held staleOrCurrent(Random random) {
    if (random.nextInt(10) < 3) {
      Held h = held.peekFirst();
      if (h != null) {
        return h;
      }
    }
    synchronized (past) {
      return past.isEmpty() ? null : past.get(random.nextInt(past.size()));
    }
  }

  // ---- workers ----

  private void togglePool(Slot slot, Random random) {
    RunningPool closing = null;
    synchronized (slot.pools) {
      if (!slot.pools.isEmpty() && (slot.pools.size() >= MAX_POOLS_PER_CLIENT || random.nextBoolean())) {
        closing = slot.pools.remove(random.nextInt(slot.pools.size()));
      }
    }
    if (closing != null) {
      Op op = history.begin(Kind.POOL_CLOSE, slot.index);
      op.pool = closing.rec().seq;
      closing.rec().closeStart = op.start;
      Workers workers = closing.workers();
      perform(op, () -> {
        workers.close();
        return null;
      });
      closing.rec().closeEnd = op.end;
      history.add(op);
      return;
    }
    History.Pool rec = new History.Pool();
    rec.seq = history.nextSeq();
    rec.client = slot.index;
    rec.leaseMs = 200 + random.nextInt(601);
    rec.shutdownTimeoutMs = random.nextInt(301);
    rec.concurrency = 1 + random.nextInt(3);
    rec.impatient = impatient(slot);
    WorkerOptions options = WorkerOptions.builder()
        .concurrency(rec.concurrency)
        .lease(Duration.ofMillis(rec.leaseMs))
        .shutdownTimeout(Duration.ofMillis(rec.shutdownTimeoutMs))
        .sweepInterval(Duration.ofMillis(50 + random.nextInt(151)))
        .claimBatch(1 + random.nextInt(4))
        .backoff(Backoff.fixed(Duration.ofMillis(20 + random.nextInt(81))))
        .build();
    Op op = history.begin(Kind.POOL_START, slot.index);
    op.pool = rec.seq;
    Workers workers = perform(op, () -> slot.queue.startWorkers(handler(rec, false), options));
    history.add(rec);
    history.add(op);
    if (workers != null) {
      synchronized (slot.pools) {
        slot.pools.add(new RunningPool(rec, workers));
      }
    }
  }

  private void closePools(Slot slot) {
    List<RunningPool> pools;
    synchronized (slot.pools) {
      pools = new ArrayList<>(slot.pools);
      slot.pools.clear();
    }
    for (RunningPool p : pools) {
      Op op = history.begin(Kind.POOL_CLOSE, slot.index);
      op.pool = p.rec().seq;
      p.rec().closeStart = op.start;
      perform(op, () -> {
        p.workers().close();
        return null;
      });
      p.rec().closeEnd = op.end;
      history.add(op);
    }
  }

  /**
   * Records every delivery it gets; a chaos handler then, by the seed and the token, returns at once,
   * extends its lease first, throws, sleeps past its lease, or sleeps past the pool's shutdown timeout.
   */
  private JobHandler handler(History.Pool pool, boolean drain) {
    return job -> {
      Instant leaseUntil = job.leaseUntil();
      long started = System.nanoTime();
      // why: read after leaseUntil; unset here means the pool's keeper had not yet been asked to extend it
      boolean closing = pool.closeStart != Long.MAX_VALUE;
      handlersRunning.incrementAndGet();
      Delivered d = new Delivered();
      d.seq = history.nextSeq();
      d.source = drain ? History.Source.DRAIN : History.Source.WORKER;
      d.client = pool.client;
      d.pool = pool.seq;
      describe(d, job, pool.leaseMs);
      d.claimMs = leaseUntil.toEpochMilli() - pool.leaseMs;
      d.claimEnd = started;
      d.claimTimeUncertain = closing;
      try {
        if (drain) {
          d.handlerAction = "drain";
          return;
        }
        Random random = new Random(cfg.seed() ^ job.token());
        int roll = random.nextInt(100);
        if (roll < 50) {
          d.handlerAction = "quick";
          Thread.sleep(random.nextInt(15));
        } else if (roll < 60) {
          d.handlerAction = "extend";
          handlerExtend(pool, d, job, 200 + random.nextInt(601));
          Thread.sleep(random.nextInt(30));
        } else if (roll < 75) {
          d.handlerAction = "throw";
          throw new IllegalStateException("injected handler failure");
        } else if (roll < 88) {
          d.handlerAction = "past-lease";
          Thread.sleep(pool.leaseMs + 50 + random.nextInt(200));
        } else {
          d.handlerAction = "slow";
          Thread.sleep(100 + random.nextInt(300));
        }
      } catch (Throwable t) {
        d.handlerThrew = true;
        throw t;
      } finally {
        d.handlerEnd = System.nanoTime();
        history.add(d);
        handlersRunning.decrementAndGet();
      }
    };
  }

  private void handlerExtend(History.Pool pool, Delivered d, LeasedJob job, long leaseMs) {
    Op op = history.begin(Kind.EXTEND, pool.client);
    op.id = d.id;
    op.token = d.token;
    op.delivery = d.seq;
    op.leaseMs = leaseMs;
    op.start = System.nanoTime();
    Instant until = perform(op, () -> job.extendLease(Duration.ofMillis(leaseMs)));
    if (until != null) {
      op.untilMs = until.toEpochMilli();
    }
    history.add(op);
  }

  // ---- drain and end state ----

  /** No faults: one plain worker consumes everything still scheduled or held, until the queue counts none. */
  private void drain() {
    Slot slot = slots[0];
    if (slot.delayq == null) {
      open(slot);
    }
    History.Pool rec = new History.Pool();
    rec.seq = history.nextSeq();
    rec.client = slot.index;
    rec.leaseMs = 5_000;
    rec.shutdownTimeoutMs = 5_000;
    rec.concurrency = 4;
    rec.drain = true;
    history.add(rec);
    WorkerOptions options = WorkerOptions.builder()
        .concurrency(rec.concurrency)
        .lease(Duration.ofMillis(rec.leaseMs))
        .shutdownTimeout(Duration.ofMillis(rec.shutdownTimeoutMs))
        .sweepInterval(Duration.ofMillis(100))
        .backoff(Backoff.fixed(Duration.ofMillis(10)))
        .build();
    Op start = history.begin(Kind.POOL_START, slot.index);
    start.pool = rec.seq;
    Workers workers = perform(start, () -> slot.queue.startWorkers(handler(rec, true), options));
    history.add(start);
    try {
      await("the drain: nothing scheduled or held in queue " + cfg.queue())
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> {
            QueueStats s = slot.queue.admin().stats();
            return s.scheduled() == 0 && s.active() == 0 && s.expired() == 0;
          });
    } catch (ConditionTimeoutException e) {
      history.unexpected.add("drain did not finish: " + e.getMessage());
    } finally {
      if (workers != null) {
        Op close = history.begin(Kind.POOL_CLOSE, slot.index);
        close.pool = rec.seq;
        rec.closeStart = close.start;
        perform(close, () -> {
          workers.close();
          return null;
        });
        rec.closeEnd = close.end;
        history.add(close);
      }
    }
    await("every handler returned").atMost(Duration.ofSeconds(30)).until(() -> handlersRunning.get() == 0);
  }

  private void readFinals() {
    Slot slot = slots[0];
    try (Raw raw = Raw.connect(cfg.redisUrl(), cfg.cluster())) {
      for (int i = 0; i < cfg.ids(); i++) {
        String id = "j" + i;
        History.Final f = new History.Final();
        f.id = id;
        Optional<JobInfo> info = slot.queue.get(id);
        info.ifPresent(j -> {
          f.state = j.state();
          f.payload = j.payloadAsString();
          f.attempts = j.attempts();
          f.maxAttempts = j.maxAttempts();
        });
        f.homePartition = Ids.partitionOf(id, cfg.partitions());
        for (int p = 0; p < cfg.partitions(); p++) {
          byte[][] keys = Keys.partition(cfg.queue(), p).keys();
          int scheduled = raw.commands.zscore(text(keys[0]), id) != null ? 1 : 0;
          int active = raw.commands.zscore(text(keys[1]), id) != null ? 1 : 0;
          int record = raw.commands.hexists(text(keys[2]), id) ? 1 : 0;
          int dead = raw.commands.zscore(text(keys[5]), id) != null ? 1 : 0;
          int lease = raw.commands.hexists(text(keys[7]), id) ? 1 : 0;
          f.inScheduled += scheduled;
          f.inActive += active;
          f.records += record;
          f.inDead += dead;
          f.leaseEntries += lease;
          if (scheduled + active + record + dead + lease > 0) {
            f.partitionsWithTraces.add(p);
          }
        }
        history.putFinal(f);
      }
    }
    history.drained = true;
  }

  private static String text(byte[] key) {
    return new String(key, StandardCharsets.UTF_8);
  }

  /** A plain Lettuce connection for reading delayq's keys directly. */
  private static final class Raw implements AutoCloseable {
    final RedisClusterCommands<String, String> commands;
    private final AutoCloseable connection;
    private final Runnable shutdown;

    private Raw(RedisClusterCommands<String, String> commands, AutoCloseable connection, Runnable shutdown) {
      this.commands = commands;
      this.connection = connection;
      this.shutdown = shutdown;
    }

    static Raw connect(String url, boolean cluster) {
      String first = url.split(",")[0].trim();
      if (cluster) {
        RedisClusterClient client = RedisClusterClient.create(first);
        StatefulRedisClusterConnection<String, String> c = client.connect();
        return new Raw(c.sync(), c, client::shutdown);
      }
      RedisClient client = RedisClient.create(first);
      StatefulRedisConnection<String, String> c = client.connect();
      return new Raw(c.sync(), c, client::shutdown);
    }

    @Override
    public void close() {
      try {
        connection.close();
      } catch (Exception e) {
        // closing a test connection
      }
      shutdown.run();
    }
  }

  // ---- recording one call ----

  /**
   * Runs one call, recording its end and its outcome: delayq's refusals are REFUSED, a timeout is
   * UNKNOWN, "unavailable" is FAILED, and anything the API does not name is UNKNOWN (and kept in
   * {@link History#unexpected}, for the report).
   */
  private <T> T perform(Op op, Callable<T> call) {
    try {
      T value = call.call();
      op.end = System.nanoTime();
      op.outcome = Outcome.OK;
      return value;
    } catch (LeaseExpiredException | JobNotFoundException | JobActiveException e) {
      op.end = System.nanoTime();
      op.outcome = Outcome.REFUSED;
      op.detail = e.getClass().getSimpleName();
    } catch (OutcomeUnknownException e) {
      op.end = System.nanoTime();
      op.outcome = Outcome.UNKNOWN;
      op.detail = describe(e);
    } catch (RedisUnavailableException e) {
      op.end = System.nanoTime();
      op.outcome = Outcome.FAILED;
      op.detail = describe(e);
    } catch (InvalidRequestException e) {
      throw new AssertionError("the checker built an invalid request: " + e.getMessage(), e);
    } catch (Exception e) {
      op.end = System.nanoTime();
      op.outcome = Outcome.UNKNOWN;
      op.detail = describe(e);
      history.unexpected.add(op.kind + ": " + op.detail);
    }
    return null;
  }

  private static String describe(Throwable e) {
    return e.getClass().getSimpleName() + ": " + e.getMessage();
  }
}
