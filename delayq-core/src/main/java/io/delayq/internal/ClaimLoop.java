package io.delayq.internal;

import io.delayq.WorkerOptions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The waker of one worker pool: claims due jobs in batches and passes them on, never more than
 * the pool has room for. Between claims it sleeps until the earliest next due time or lease
 * deadline it has seen on any partition, each timed by that partition's node clock, at most one
 * sweep interval, and is woken early by a wake message when an earlier job is scheduled. A
 * partition that fails is backed off alone; only when all fail does the whole loop back off.
 *
 * <p>A partition whose claim found it empty (nothing scheduled, nothing leased) is <em>quiet</em>:
 * its sweeps count its keys ({@code EXISTS}, one command, no script) instead of running the claim
 * script (one call, but a handful of commands inside it). Any of them appearing means work came
 * whose wake message was lost, and the partition is claimed at once; a wake message, the oldest
 * dead job's retention running out (the claim trims it) and a minute without a claim (which reads
 * the node's clock afresh) end the quiet too. So a lost wake message still costs at most a sweep
 * interval, and the wake-up path is the same as for any partition.
 */
final class ClaimLoop implements WakeListener, Runnable {
  private static final Logger log = LoggerFactory.getLogger(ClaimLoop.class);
  /**
   * The longest wait between claims while Redis does not answer. why: as long as the reconnect
   * delay's cap (LinkWatchdog.reconnectDelay), so that workers resume within about a second of
   * Redis coming back; a claim refused while the link is down costs nothing on the wire.
   */
  static final long MAX_ERROR_BACKOFF_MILLIS = 1_000;
  /**
   * The longest a quiet partition goes without a claim. why: the claim refreshes the estimate of
   * the node's clock that wake messages are timed by, and is the backstop for any change a key
   * count cannot see; once a minute costs a twelfth of a command a second.
   */
  static final long QUIET_CLAIM_EVERY_NANOS = TimeUnit.SECONDS.toNanos(60);

  private final Settling settling;
  private final WorkerOptions options;
  private final Ticker ticker;
  private final PartitionClocks clocks;
  private final int partitionCount;
  private final IntSupplier room;
  private final Consumer<List<Delivery>> dispatch;
  private final Round round;
  /** Who claims, for log lines: "workers", or a forwarder's name. */
  private final String role;
  private final Waiter waiter = new Waiter();
  private final Random random;
  /** Per partition: the local time at which to claim next. */
  private final long[] wakeAt;
  /** Per partition: the earliest local due time announced since its current claim was sent. */
  private final long[] announced;
  /** Per partition: its last claim found it empty and nothing has been announced since. */
  private final boolean[] quiet;
  /**
   * Per partition, loop's thread only: whether its key count includes the dead set, which it does
   * when the last claim found no dead job (else {@link #trimAt} says when to claim for trimming).
   */
  private final boolean[] countDead;
  /** Per partition, loop's thread only: the local time the oldest dead job needs trimming, or MAX_VALUE. */
  private final long[] trimAt;
  /** Per partition, loop's thread only: the local time its last claim answered. */
  private final long[] claimedAt;
  /** Per partition: claims failed in a row; touched by the loop's thread only. */
  private final int[] partitionFailures;
  private int failingPartitions;
  private volatile boolean running = true;
  /** While the handlers' executor refuses work: no claims before this local time. */
  private volatile long pausedUntil;
  private volatile boolean paused;

  /**
   * One round of calls to the partitions whose time has come; {@link ClaimRound#run} for workers.
   * A forwarder plugs in its own (a script that moves due jobs instead of leasing them), and so
   * shares this loop's sleeping, waking, sweeping and backing off.
   */
  interface Round {
    ClaimRound.Result run(int[] partitions, int[] shares, long deadlineNanos);
  }

  ClaimLoop(Settling settling, WorkerOptions options, Ticker ticker, Random random, IntSupplier room,
      Consumer<List<Delivery>> dispatch) {
    this(settling, options, ticker, random, room, dispatch,
        (partitions, shares, deadline) ->
            ClaimRound.run(settling, partitions, shares, options.lease().toMillis(), deadline, ticker),
        "workers");
  }

  ClaimLoop(Settling settling, WorkerOptions options, Ticker ticker, Random random, IntSupplier room,
      Consumer<List<Delivery>> dispatch, Round round, String role) {
    this.round = round;
    this.role = role;
    this.settling = settling;
    this.options = options;
    this.ticker = ticker;
    this.random = random;
    this.partitionCount = settling.queue().partitionCount();
    this.clocks = new PartitionClocks(ticker, partitionCount);
    this.room = room;
    this.dispatch = dispatch;
    this.wakeAt = new long[partitionCount];
    this.announced = new long[partitionCount];
    this.partitionFailures = new int[partitionCount];
    this.quiet = new boolean[partitionCount];
    this.countDead = new boolean[partitionCount];
    this.trimAt = new long[partitionCount];
    this.claimedAt = new long[partitionCount];
    long now = ticker.nanoTime();
    Arrays.fill(wakeAt, now);
    Arrays.fill(announced, Long.MAX_VALUE);
    Arrays.fill(trimAt, Long.MAX_VALUE);
  }

  /** A job due at {@code dueMillis} (that partition's node clock) was scheduled ahead of all others. */
  @Override
  public void onWake(int partition, long dueMillis) {
    if (partition < 0 || partition >= partitionCount) {
      return;
    }
    long at = clocks.localNanosAt(partition, dueMillis);
    synchronized (this) {
      // why: the next look at it must be a claim, at the announced time at the latest
      quiet[partition] = false;
      announced[partition] = Math.min(announced[partition], at);
      wakeAt[partition] = Math.min(wakeAt[partition], at);
    }
    waiter.wake();
  }

  /** The wake-up subscription is (back) in place: announcements may have been lost, so claim every partition now. */
  @Override
  public void onSubscribed() {
    long now = ticker.nanoTime();
    synchronized (this) {
      Arrays.fill(quiet, false);
      Arrays.fill(wakeAt, now);
    }
    waiter.wake();
  }

  /** Room for more jobs opened up, or the loop should stop: look again now. */
  void wake() {
    waiter.wake();
  }

  /** Stops claiming for a while: the handlers' executor refuses work. */
  void pauseFor(long millis) {
    pausedUntil = ticker.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    paused = true;
    waiter.wake();
  }

  void stop() {
    running = false;
    waiter.wake();
  }

  boolean isRunning() {
    return running;
  }

  @Override
  public void run() {
    int failures = 0;
    int start = partitionCount == 1 ? 0 : random.nextInt(partitionCount);
    while (running) {
      try {
        if (paused) {
          long left = pausedUntil - ticker.nanoTime();
          if (left > 0) {
            waiter.await(left);
            continue;
          }
          paused = false;
        }
        int free = room.getAsInt();
        if (free <= 0) {
          waiter.await(options.sweepInterval().toNanos());
          continue;
        }
        claimDuePartitions(start, free);
        start = (start + 1) % partitionCount;
        if (failures > 0) {
          log.info("Redis answers again; {} of queue '{}' resume", role, settling.queueName());
          failures = 0;
        }
        if (running && room.getAsInt() > 0) {
          sleepUntilNextWake();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (Throwable t) {
        failures++;
        long backoff = Math.min(MAX_ERROR_BACKOFF_MILLIS, 100L << Math.min(failures - 1, 6));
        if (failures == 1) {
          log.warn("{} of queue '{}' cannot claim; retrying every ≤{} ms until Redis answers: {}",
              role, settling.queueName(), MAX_ERROR_BACKOFF_MILLIS, Errors.unwrap(t).toString());
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
   * Claims from every partition whose wake-up time has come, sharing the free room among them, and
   * counts the keys of the quiet ones among them. The calls go out together, so many partitions
   * cost no more latency than one.
   */
  private void claimDuePartitions(int start, int free) throws Throwable {
    long now = ticker.nanoTime();
    List<Integer> due = new ArrayList<>();
    List<Integer> counted = new ArrayList<>();
    synchronized (this) {
      for (int i = 0; i < partitionCount; i++) {
        int p = (start + i) % partitionCount;
        if (wakeAt[p] - now > 0) {
          continue;
        }
        if (quiet[p] && !reached(trimAt[p], now) && now - claimedAt[p] < QUIET_CLAIM_EVERY_NANOS) {
          counted.add(p);
        } else if (due.size() < free) {
          due.add(p);
          quiet[p] = false;
          announced[p] = Long.MAX_VALUE;
        }
      }
    }
    if (due.isEmpty() && counted.isEmpty()) {
      return;
    }
    long deadline = now + settling.queue().client.settings().commandTimeout().toNanos();
    Map<Integer, CompletableFuture<Long>> counts = countKeys(counted);
    Map<Integer, Throwable> failures = new HashMap<>();
    List<Delivery> jobs = List.of();
    boolean interrupted = false;
    if (!due.isEmpty()) {
      int share = Math.min(options.claimBatch(), Math.max(1, free / due.size()));
      int[] partitions = due.stream().mapToInt(Integer::intValue).toArray();
      int[] shares = new int[partitions.length];
      Arrays.fill(shares, share);
      ClaimRound.Result result = round.run(partitions, shares, deadline);
      for (ClaimRound.Reply reply : result.replies()) {
        claimed(reply);
      }
      failures.putAll(result.failures());
      jobs = result.jobs();
      interrupted = result.interrupted();
    }
    if (!interrupted) {
      interrupted = awaitCounts(counts, deadline, failures);
    }
    List<Integer> newlyFailing = new ArrayList<>(0);
    Throwable failure = null;
    for (var failed : failures.entrySet()) {
      failure = failed.getValue();
      if (partitionFailed(failed.getKey())) {
        newlyFailing.add(failed.getKey());
      }
    }
    if (!jobs.isEmpty()) {
      dispatch.accept(jobs);
    }
    if (interrupted) {
      throw new InterruptedException();
    }
    if (!newlyFailing.isEmpty() && failingPartitions < partitionCount) {
      log.warn("partition(s) {} of queue '{}' cannot be claimed (their Redis node may be failing over); the"
          + " other partitions go on, these are retried every ≤{} ms: {}",
          newlyFailing, settling.queueName(), MAX_ERROR_BACKOFF_MILLIS, Errors.unwrap(failure).toString());
    }
    if (failure != null && failingPartitions == partitionCount) {
      // why: nothing answers; the loop's own backoff and its single warning take over
      throw failure;
    }
  }

  /** Takes in one partition's claim answer: when to look next, and whether it is quiet now. */
  private void claimed(ClaimRound.Reply reply) {
    int p = reply.partition();
    clocks.observe(p, reply.redisMicros(), reply.sentNanos(), reply.arrivedNanos());
    long sweepAt = reply.arrivedNanos() + options.sweepInterval().toNanos();
    long next =
        reply.paused() || reply.nextWakeMillis() < 0
            ? sweepAt
            : Math.min(clocks.localNanosAt(p, reply.nextWakeMillis()), sweepAt);
    // why: nothing scheduled, nothing leased, and the claim looked at the dead set
    boolean empty = reply.nextWakeMillis() < 0 && reply.deadTrimMillis() != -2;
    claimedAt[p] = reply.arrivedNanos();
    countDead[p] = reply.deadTrimMillis() == -1;
    trimAt[p] = reply.deadTrimMillis() >= 0 ? clocks.localNanosAt(p, reply.deadTrimMillis()) : Long.MAX_VALUE;
    synchronized (this) {
      // why: set, then fold in what was announced during the claim, so no wake message is lost
      wakeAt[p] = Math.min(next, announced[p]);
      quiet[p] = empty && announced[p] == Long.MAX_VALUE;
    }
    answered(p);
  }

  /** Sends the key counts of quiet partitions: scheduled and leased jobs, and dead ones where none were. */
  private Map<Integer, CompletableFuture<Long>> countKeys(List<Integer> partitions) {
    Map<Integer, CompletableFuture<Long>> counts = new LinkedHashMap<>();
    for (int p : partitions) {
      Keys.Partition keys = settling.queue().partition(p);
      CompletableFuture<Long> count;
      try {
        count =
            countDead[p]
                ? settling.runner().countExisting(keys.scheduled(), keys.active(), keys.dead())
                : settling.runner().countExisting(keys.scheduled(), keys.active());
      } catch (RuntimeException e) {
        count = CompletableFuture.failedFuture(e);
      }
      counts.put(p, count);
    }
    return counts;
  }

  /**
   * Waits for the key counts until {@code deadlineNanos}: a quiet partition none of whose keys
   * exist sleeps a sweep interval more, any other is claimed at once. True when interrupted.
   */
  private boolean awaitCounts(
      Map<Integer, CompletableFuture<Long>> counts, long deadlineNanos, Map<Integer, Throwable> failures) {
    for (var entry : counts.entrySet()) {
      int p = entry.getKey();
      long found;
      try {
        found = entry.getValue().get(Math.max(0, deadlineNanos - ticker.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        failures.put(p, e);
        continue;
      } catch (ExecutionException e) {
        failures.put(p, Errors.unwrap(e));
        continue;
      } catch (InterruptedException e) {
        return true;
      }
      long sweepAt = ticker.nanoTime() + options.sweepInterval().toNanos();
      synchronized (this) {
        if (!quiet[p]) {
          continue; // a wake message came meanwhile and set when to claim
        }
        if (found == 0) {
          wakeAt[p] = sweepAt;
        } else {
          quiet[p] = false; // work came and its wake message was lost: its time has come
        }
      }
      answered(p);
    }
    return false;
  }

  private void answered(int p) {
    if (partitionFailures[p] > 0) {
      log.info("partition {} of queue '{}' answers again", p, settling.queueName());
      partitionFailures[p] = 0;
      failingPartitions--;
    }
  }

  /** Whether local time {@code now} has reached {@code at}, where MAX_VALUE means never. */
  private static boolean reached(long at, long now) {
    return at != Long.MAX_VALUE && at - now <= 0;
  }

  /** Backs off from one partition whose claim failed; true when it had been answering until now. */
  private boolean partitionFailed(int p) {
    int failures = ++partitionFailures[p];
    if (failures == 1) {
      failingPartitions++;
    }
    long backoff = Math.min(MAX_ERROR_BACKOFF_MILLIS, 100L << Math.min(failures - 1, 6));
    synchronized (this) {
      wakeAt[p] = ticker.nanoTime() + TimeUnit.MILLISECONDS.toNanos(backoff);
      quiet[p] = false;
    }
    return failures == 1;
  }

  private void sleepUntilNextWake() throws InterruptedException {
    long earliest = Long.MAX_VALUE;
    synchronized (this) {
      for (long at : wakeAt) {
        earliest = Math.min(earliest, at);
      }
    }
    long nanos = Math.min(Ticker.nanosBetween(ticker.nanoTime(), earliest), options.sweepInterval().toNanos());
    if (nanos > 0) {
      waiter.await(nanos);
    }
  }
}
