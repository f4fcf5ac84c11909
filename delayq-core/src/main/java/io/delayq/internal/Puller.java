package io.delayq.internal;

import io.delayq.Backoff;
import io.delayq.InvalidRequestException;
import io.delayq.JobState;
import io.delayq.LeasedJob;
import io.delayq.PullConsumer;
import io.delayq.PullConsumer.Settled;
import io.delayq.PullConsumer.Settlement;
import io.delayq.OutcomeUnknownException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/** Claims and settles by hand, for callers' own loops and the server's long polls. */
final class Puller implements PullConsumer {
  /** Longest a claim may wait for work: long polls beyond it are better reissued. */
  private static final Duration MAX_CLAIM_WAIT = Duration.ofMinutes(5);
  /** How often a waiting claim looks again even without a wake-up message. */
  private static final long CLAIM_SWEEP_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final QueueContext queue;
  private final Settling settling;
  private final Ticker ticker = Ticker.SYSTEM;
  private final PartitionClocks clocks;
  private final AtomicInteger cursor = new AtomicInteger();

  Puller(QueueContext queue, Settling settling) {
    this.queue = queue;
    this.settling = settling;
    this.clocks = new PartitionClocks(ticker, queue.partitionCount());
  }

  @Override
  public List<LeasedJob> claim(int max, Duration lease) {
    long leaseMillis = check(max, lease);
    queue.checkOpen("claim");
    Filled filled = fill(max, leaseMillis);
    filled.throwIfNothingAnswered(queue.client.displayUri());
    return List.copyOf(filled.jobs);
  }

  @Override
  public List<LeasedJob> claim(int max, Duration lease, Duration wait) {
    Objects.requireNonNull(wait, "wait");
    if (wait.isNegative() || wait.compareTo(MAX_CLAIM_WAIT) > 0) {
      throw new InvalidRequestException("wait", "must be between 0 and 5 minutes; got " + wait);
    }
    long leaseMillis = check(max, lease);
    queue.checkOpen("claim");
    Filled first = fill(max, leaseMillis);
    if (!first.jobs.isEmpty() || wait.isZero() || first.interrupted) {
      first.throwIfNothingAnswered(queue.client.displayUri());
      return List.copyOf(first.jobs);
    }
    long deadline = ticker.nanoTime() + wait.toNanos();
    Waiter waiter = new Waiter();
    WakeListener listener = (partition, dueMillis) -> waiter.wake();
    CompletableFuture<Void> subscribed = queue.client.wakeBus().register(queue.wakeChannelName(), listener);
    try {
      // why: once Redis confirms the subscription, a job scheduled after the claim round below
      // announces itself; one scheduled before it, that round finds
      try {
        subscribed.get(Math.min(CLAIM_SWEEP_NANOS, Math.max(0, deadline - ticker.nanoTime())), TimeUnit.NANOSECONDS);
      } catch (ExecutionException | TimeoutException e) {
        // the sweep bounds the wait instead
      }
      long nextWake;
      while (true) {
        Filled round = fill(max, leaseMillis);
        if (!round.jobs.isEmpty() || round.interrupted) {
          return List.copyOf(round.jobs);
        }
        nextWake = round.answered ? round.nextWakeNanos : ticker.nanoTime() + CLAIM_SWEEP_NANOS;
        long now = ticker.nanoTime();
        long left = deadline - now;
        if (left <= 0) {
          return List.of();
        }
        waiter.await(Math.max(1, Math.min(left, Math.min(Ticker.nanosBetween(now, nextWake), CLAIM_SWEEP_NANOS))));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return List.of();
    } finally {
      queue.client.wakeBus().unregister(queue.wakeChannelName(), listener);
    }
  }

  /** What a fill got, and when to look again. */
  private static final class Filled {
    final List<Delivery> jobs = new ArrayList<>();
    boolean answered;
    boolean interrupted;
    Throwable failure;
    /** Whether some partition's claim may have leased jobs whose answer never came. */
    boolean outcomeUnknown;
    long nextWakeNanos = Long.MAX_VALUE;

    /** A claim that got no job and no answer from any partition failed, and says why. */
    void throwIfNothingAnswered(String redisUri) {
      if (answered || failure == null || !jobs.isEmpty()) {
        return;
      }
      if (outcomeUnknown) {
        throw new OutcomeUnknownException(
            "no partition at " + redisUri + " answered the claim (" + failure.getMessage() + "); whatever it"
                + " leased is handed back (uncounted) as soon as an answer arrives",
            failure);
      }
      throw Errors.translate(failure, redisUri, null, null, 0);
    }
  }

  /**
   * Claims from the partitions in turn until {@code max} jobs are leased or no partition may hold
   * more: each round asks as many partitions at once as there are jobs still wanted, sharing the
   * number out, and asks again only those that gave all they were asked for.
   */
  private Filled fill(int max, long leaseMillis) {
    int n = queue.partitionCount();
    int start = Math.floorMod(cursor.getAndIncrement(), n);
    List<Integer> candidates = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      candidates.add((start + i) % n);
    }
    Filled filled = new Filled();
    long deadline = ticker.nanoTime() + queue.client.settings().commandTimeout().toNanos();
    while (filled.jobs.size() < max && !candidates.isEmpty()) {
      int free = max - filled.jobs.size();
      int asked = Math.min(free, candidates.size());
      int share = Math.min(1000, Math.max(1, free / asked));
      int[] partitions = new int[asked];
      int[] shares = new int[asked];
      for (int i = 0; i < asked; i++) {
        partitions[i] = candidates.get(i);
        shares[i] = share;
      }
      List<Integer> next = new ArrayList<>(candidates.subList(asked, candidates.size()));
      ClaimRound.Result result = ClaimRound.run(settling, partitions, shares, leaseMillis, deadline, ticker);
      filled.jobs.addAll(result.jobs());
      for (ClaimRound.Reply reply : result.replies()) {
        filled.answered = true;
        clocks.observe(reply.partition(), reply.redisMicros(), reply.sentNanos(), reply.arrivedNanos());
        if (reply.nextWakeMillis() >= 0 && !reply.paused()) {
          filled.nextWakeNanos = Math.min(filled.nextWakeNanos, clocks.localNanosAt(reply.partition(), reply.nextWakeMillis()));
        }
        if (reply.jobs().size() >= share) {
          next.add(0, reply.partition());
        }
      }
      for (Throwable failure : result.failures().values()) {
        if (filled.failure == null) {
          filled.failure = failure;
        }
        if (Errors.translate(failure, "", null, null, 0) instanceof OutcomeUnknownException) {
          filled.outcomeUnknown = true;
        }
      }
      if (result.interrupted()) {
        filled.interrupted = true;
        break;
      }
      candidates = next;
    }
    return filled;
  }

  private static long check(int max, Duration lease) {
    if (max < 1 || max > 1000) {
      throw new InvalidRequestException("max", "must be between 1 and 1000; got " + max);
    }
    return Rules.checkLease(lease);
  }

  @Override
  public void ack(String id, long token) {
    Rules.checkJobId(id);
    queue.checkOpen("ack");
    if (!settling.single(settling.ackAll(queue.partitionOf(id), List.of(new Settling.Held(id, token))), id, token)) {
      settling.refused(id, token);
    }
  }

  @Override
  public JobState nack(String id, long token, Duration retryIn, String error) {
    Rules.checkJobId(id);
    queue.checkOpen("nack");
    Duration wait = retryIn != null ? retryIn : Backoff.DEFAULT.delayAfter(1, ThreadLocalRandom.current());
    return queue.await(settling.nack(id, token, Rules.delayMillis(wait), false, error), id, token);
  }

  @Override
  public List<Settled> settleAll(List<Settlement> settlements) {
    Objects.requireNonNull(settlements, "settlements");
    if (settlements.size() > MAX_SETTLEMENTS) {
      throw new InvalidRequestException(
          "settlements", "holds " + settlements.size() + "; at most " + MAX_SETTLEMENTS + " are settled per call."
              + " Split them over several calls");
    }
    for (int i = 0; i < settlements.size(); i++) {
      if (settlements.get(i) == null) {
        throw new InvalidRequestException("settlements[" + i + "]", "is null; pass a Settlement.ack or Settlement.nack");
      }
    }
    if (settlements.isEmpty()) {
      return List.of();
    }
    queue.checkOpen("settleAll");
    return settling.settleAll(settlements);
  }

  @Override
  public Instant extendLease(String id, long token, Duration lease) {
    Rules.checkJobId(id);
    long leaseMillis = Rules.checkLease(lease);
    queue.checkOpen("extendLease");
    return Instant.ofEpochMilli(queue.await(settling.extendAsync(id, token, leaseMillis), id, token));
  }

  @Override
  public boolean release(String id, long token) {
    Rules.checkJobId(id);
    queue.checkOpen("release");
    return settling.single(settling.releaseAll(queue.partitionOf(id), List.of(new Settling.Held(id, token))), id, token);
  }

  @Override
  public boolean release(String id, long token, Duration dueIn) {
    Rules.checkJobId(id);
    if (dueIn == null) {
      throw new InvalidRequestException("dueIn", "is null; use Duration.ZERO for 'due at once'");
    }
    long dueInMillis;
    try {
      dueInMillis = Rules.delayMillis(dueIn);
    } catch (InvalidRequestException e) {
      throw new InvalidRequestException("dueIn", e.getMessage().substring(e.field().length() + 2));
    }
    queue.checkOpen("release");
    return settling.single(
        settling.releaseAll(queue.partitionOf(id), List.of(new Settling.Held(id, token)), dueInMillis), id, token);
  }

  @Override
  public void bury(String id, long token, String reason) {
    Rules.checkJobId(id);
    queue.checkOpen("bury");
    queue.await(settling.nack(id, token, 0, true, reason), id, token);
  }
}
