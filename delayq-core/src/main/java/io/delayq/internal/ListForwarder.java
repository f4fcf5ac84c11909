package io.delayq.internal;

import io.delayq.Forwarder;
import io.delayq.ForwarderStatus;
import io.delayq.ListForwarding;
import io.delayq.WorkerOptions;
import io.lettuce.core.cluster.SlotHash;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Forwards the due jobs of one queue to a Redis list, on the workers' {@link ClaimLoop}: it sleeps
 * until the next due time, is woken early by wake messages, sweeps, and backs off from failing
 * partitions exactly as workers do; only its round differs.
 *
 * <p>A partition whose script may touch the list (any partition on a single Redis; on a cluster,
 * one in the list's slot) is <em>atomic</em>: {@code forward-list.lua} pushes its due jobs and
 * removes them in one call. Every other partition is <em>two-step</em>: its jobs are claimed
 * (leased), pushed with one command on the list's node, then acked. A forwarder that dies between
 * push and ack leaves them leased; they are pushed again when the lease ends (at least once).
 */
final class ListForwarder implements Forwarder {
  private static final Logger log = LoggerFactory.getLogger(ListForwarder.class);
  /** Expired leases ended per call, as a claim does. */
  private static final int RECOVER_PER_CALL = 100;
  static final long MIN_MISCONFIGURED_BACKOFF_MILLIS = 200;
  static final long MAX_MISCONFIGURED_BACKOFF_MILLIS = 10_000;

  /**
   * Called in two-step mode after a push succeeded and before its ack is sent, with the ids
   * pushed. Tests set it to stand in for a process that dies right there; null otherwise.
   */
  static volatile java.util.function.Consumer<List<String>> afterPushHook;

  private final DelayqClient client;
  private final Settling settling;
  private final QueueContext queue;
  private final ListForwarding options;
  private final byte[] list;
  private final byte[] format;
  private final byte[] pushEnd;
  private final boolean[] atomic;
  private final String target;
  private final ClaimLoop loop;
  private final Thread thread;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final AtomicLong forwarded = new AtomicLong();
  private final AtomicLong deadLettered = new AtomicLong();
  private final AtomicLong retried = new AtomicLong();
  private final AtomicInteger inFlight = new AtomicInteger();
  private volatile ForwarderStatus.State state = ForwarderStatus.State.STARTING;
  private volatile String lastError;
  private volatile Instant lastErrorAt;
  /** Loop thread only: consecutive rounds that found the list misconfigured. */
  private int misconfiguredRounds;

  private ListForwarder(DelayqClient client, Settling settling, ListForwarding options) {
    this.client = client;
    this.settling = settling;
    this.queue = settling.queue();
    this.options = options;
    this.list = Keys.forwardList(options.list());
    this.format = Keys.bytes(options.format() == ListForwarding.Format.ENVELOPE ? "e" : "r");
    this.pushEnd = Keys.bytes(options.pushEnd() == ListForwarding.End.RIGHT ? "r" : "l");
    int partitions = queue.partitionCount();
    this.atomic = new boolean[partitions];
    int atomicCount = 0;
    int listSlot = SlotHash.getSlot(list);
    for (int p = 0; p < partitions; p++) {
      atomic[p] =
          !options.twoStep()
              && (!client.connector().isCluster() || SlotHash.getSlot(queue.partition(p).scheduled()) == listSlot);
      atomicCount += atomic[p] ? 1 : 0;
    }
    this.target = targetName(options, atomicCount, partitions);
    WorkerOptions loopOptions =
        WorkerOptions.builder()
            .concurrency(1)
            .claimBatch(options.batch())
            .lease(options.lease())
            .sweepInterval(options.sweepInterval())
            .build();
    // why: two-step jobs are pushed and acked on the loop's thread before the next round, so the
    // loop never holds any between rounds and may always ask every due partition for a full batch
    int room = options.batch() * partitions;
    this.loop = new ClaimLoop(settling, loopOptions, Ticker.SYSTEM, new Random(), () -> closed.get() ? 0 : room,
        this::pushAndAck, this::round, "the list forwarder");
    this.thread = new Thread(loop, "delayq-forwarder-" + queue.name);
    thread.setDaemon(true);
  }

  static ListForwarder start(DelayqClient client, Settling settling, ListForwarding options) {
    ListForwarder forwarder = new ListForwarder(client, settling, options);
    client.register(forwarder);
    client.wakeBus().register(settling.queue().wakeChannelName(), forwarder.loop);
    forwarder.thread.start();
    log.info("forwarding due jobs of queue '{}' to {}", settling.queueName(), forwarder.target);
    return forwarder;
  }

  private static String targetName(ListForwarding options, int atomicCount, int partitions) {
    String mode;
    if (atomicCount == partitions) {
      mode = "atomic";
    } else if (atomicCount == 0) {
      mode = "two-step";
    } else {
      mode = "atomic on " + atomicCount + " of " + partitions + " partitions, two-step on the others";
    }
    return "redis-list:" + options.list() + " (" + mode + ", " + options.format().name().toLowerCase() + ")";
  }

  /** What the heartbeat reports for this forwarder: one loop, and the jobs it holds while pushing them. */
  io.delayq.WorkerProcess.QueueWork work() {
    return new io.delayq.WorkerProcess.QueueWork(queue.name, 1, inFlight.get());
  }

  /** Whether partition {@code p} is moved by the atomic script; for tests. */
  boolean isAtomic(int p) {
    return atomic[p];
  }

  @Override
  public String queue() {
    return queue.name;
  }

  /**
   * {@code redis-list:<name> (<mode>, <format>)}, the mode being {@code atomic}, {@code two-step},
   * or which partitions are which.
   */
  @Override
  public String target() {
    return target;
  }

  @Override
  public ForwarderStatus status() {
    return new ForwarderStatus(
        state, target, forwarded.get(), deadLettered.get(), retried.get(), inFlight.get(), lastError, lastErrorAt);
  }

  /**
   * Stops the loop and waits for its current round (a two-step push and its ack included) to end;
   * jobs not pushed stay in delayq, and two-step jobs claimed and not pushed are handed back.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    loop.stop();
    client.wakeBus().unregister(queue.wakeChannelName(), loop);
    try {
      thread.join(2 * client.settings().commandTimeout().toMillis() + 1_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (thread.isAlive()) {
      log.warn("the forwarder of queue '{}' did not stop in time; jobs it pushed and did not ack are pushed again"
          + " when their leases end", queue.name);
    }
    client.unregister(this);
    state = ForwarderStatus.State.CLOSED;
    log.info("stopped forwarding queue '{}' to {}: {} job(s) forwarded", queue.name, target, forwarded.get());
  }

  // ---- one round ----

  private ClaimRound.Result round(int[] partitions, int[] shares, long deadlineNanos) {
    List<Integer> moving = new ArrayList<>();
    List<Integer> claiming = new ArrayList<>();
    for (int i = 0; i < partitions.length; i++) {
      (atomic[partitions[i]] ? moving : claiming).add(i);
    }
    queue.schedules().sweepSoon(partitions, System.nanoTime());
    Map<Integer, CompletableFuture<ClaimRound.Reply>> sent = new LinkedHashMap<>();
    Map<Integer, String> problems = new HashMap<>();
    for (int i : moving) {
      int p = partitions[i];
      long sentAt = System.nanoTime();
      CompletableFuture<ClaimRound.Reply> reply;
      try {
        reply =
            queue.<List<Object>>runWithKeys(
                    settling.runner(),
                    Script.FORWARD_LIST,
                    p,
                    new byte[][] {list, Keys.schedules(queue.name, p)},
                    QueueContext.number(shares[i]),
                    QueueContext.number(RECOVER_PER_CALL),
                    format,
                    pushEnd)
                .thenApply(r -> parse(p, r, sentAt, problems));
      } catch (RuntimeException e) {
        reply = CompletableFuture.failedFuture(e);
      }
      sent.put(p, reply);
    }
    ClaimRound.Result claimed =
        claiming.isEmpty()
            ? new ClaimRound.Result(List.of(), List.of(), Map.of(), false)
            : ClaimRound.run(settling, pick(partitions, claiming), pick(shares, claiming), options.lease().toMillis(),
                deadlineNanos, Ticker.SYSTEM);
    List<ClaimRound.Reply> replies = new ArrayList<>(claimed.replies());
    Map<Integer, Throwable> failures = new HashMap<>(claimed.failures());
    boolean interrupted = claimed.interrupted();
    for (var entry : sent.entrySet()) {
      try {
        replies.add(entry.getValue().get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS));
      } catch (TimeoutException e) {
        failures.put(entry.getKey(), e);
      } catch (ExecutionException e) {
        failures.put(entry.getKey(), Errors.unwrap(e));
      } catch (InterruptedException e) {
        interrupted = true;
        Thread.currentThread().interrupt();
        break;
      }
    }
    String problem;
    synchronized (problems) {
      problem = problems.isEmpty() ? null : problems.values().iterator().next();
    }
    if (problem != null) {
      misconfigured(problem);
    } else if (failures.isEmpty() && !replies.isEmpty() && claimed.jobs().isEmpty()) {
      // why: a round with jobs to push says how the list is in pushAndAck; a round that moved
      // nothing looked at no list, so leaving MISCONFIGURED takes a look of its own
      if (state != ForwarderStatus.State.MISCONFIGURED || listIsUsable()) {
        healthy();
      }
    }
    if (!failures.isEmpty()) {
      failing(failures.values().iterator().next());
    }
    return new ClaimRound.Result(claimed.jobs(), replies, failures, interrupted);
  }

  private static int[] pick(int[] values, List<Integer> at) {
    int[] out = new int[at.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = values[at.get(i)];
    }
    return out;
  }

  /** Entries in the script's answer (see forward-list.lua). */
  private static final int ANSWER = 9;

  private ClaimRound.Reply parse(int p, List<Object> reply, long sentAt, Map<Integer, String> problems) {
    long arrived = System.nanoTime();
    if (reply.size() < ANSWER) {
      throw new IllegalStateException("forward-list answered " + reply.size() + " entries; expected " + ANSWER);
    }
    if (reply.size() > ANSWER) {
      // why: the call moved or skipped occurrences of recurring schedules; their next ones are computed now
      List<String> names = new ArrayList<>();
      for (Object name : (List<?>) reply.get(ANSWER)) {
        names.add(QueueContext.text(name));
      }
      queue.schedules().tendSoon(names);
    }
    long moved = (Long) reply.get(3);
    long unreadable = (Long) reply.get(8);
    if (unreadable > 0) {
      deadLettered.addAndGet(unreadable);
      log.warn("{} job(s) of queue '{}' have records that cannot be decoded; they went to the dead-letter set",
          unreadable, queue.name);
    }
    String problem = QueueContext.text(reply.get(7));
    if (!problem.isEmpty()) {
      synchronized (problems) {
        problems.put(p, problem);
      }
    }
    QueueMeters meters = queue.meters();
    int recovered = ((Long) reply.get(5)).intValue();
    int buried = ((Long) reply.get(6)).intValue();
    meters.leasesExpired(recovered);
    meters.redelivered(recovered - buried);
    meters.dead(buried);
    if (moved > 0) {
      forwarded.addAndGet(moved);
      meters.acked((int) moved);
    }
    return new ClaimRound.Reply(p, (Long) reply.get(0), (Long) reply.get(1), (Long) reply.get(2) == 1L,
        (Long) reply.get(4), List.of(), sentAt, arrived);
  }

  // ---- two-step: push, then ack ----

  private void pushAndAck(List<Delivery> jobs) {
    if (closed.get()) {
      handBack(jobs);
      return;
    }
    List<Delivery> ordered = new ArrayList<>(jobs);
    // why: one push for the whole round, earliest due first, so a consumer at the other end pops
    // them in due order as the atomic script's batches are
    ordered.sort(Comparator.comparing(Delivery::runAt));
    byte[][] values = new byte[ordered.size()][];
    for (int i = 0; i < values.length; i++) {
      Delivery d = ordered.get(i);
      values[i] =
          options.format() == ListForwarding.Format.ENVELOPE
              ? ListEnvelope.of(d.id(), d.attempt(), d.runAt().toEpochMilli(), d.payload(), d.payloadIsJson())
              : d.payload();
    }
    inFlight.addAndGet(values.length);
    try {
      try {
        CompletableFuture<Long> push =
            (options.pushEnd() == ListForwarding.End.RIGHT ? client.async().rpush(list, values)
                : client.async().lpush(list, values)).toCompletableFuture();
        push.get(client.settings().commandTimeout().toNanos(), TimeUnit.NANOSECONDS);
      } catch (ExecutionException | TimeoutException | RuntimeException e) {
        Throwable cause = e instanceof ExecutionException ? Errors.unwrap(e) : e;
        String message = String.valueOf(cause.getMessage());
        if (message.startsWith("WRONGTYPE")) {
          misconfigured(message);
        } else {
          failing(cause);
          loop.pauseFor(ClaimLoop.MAX_ERROR_BACKOFF_MILLIS);
        }
        // why: a push that timed out may have happened: handing back then costs a duplicate, which
        // at least once allows; waiting for the lease would cost the same duplicate, later
        retried.addAndGet(values.length);
        handBack(jobs);
        return;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        handBack(jobs);
        return;
      }
      var hook = afterPushHook;
      if (hook != null) {
        hook.accept(ordered.stream().map(Delivery::id).toList());
      }
      ack(ordered);
      healthy();
    } finally {
      inFlight.addAndGet(-values.length);
    }
  }

  private void ack(List<Delivery> pushed) {
    Map<Integer, List<Settling.Held>> byPartition = new HashMap<>();
    for (Delivery d : pushed) {
      byPartition.computeIfAbsent(d.partition(), k -> new ArrayList<>()).add(new Settling.Held(d.id(), d.token()));
    }
    List<CompletableFuture<List<Long>>> acks = new ArrayList<>();
    for (var entry : byPartition.entrySet()) {
      List<Settling.Held> held = entry.getValue();
      for (int from = 0; from < held.size(); from += Settling.MAX_ACKS_PER_CALL) {
        List<Settling.Held> chunk = held.subList(from, Math.min(held.size(), from + Settling.MAX_ACKS_PER_CALL));
        acks.add(settling.ackAll(entry.getKey(), chunk));
      }
    }
    long deadline = System.nanoTime() + client.settings().commandTimeout().toNanos();
    for (CompletableFuture<List<Long>> ack : acks) {
      try {
        for (Long done : ack.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
          if (done == 1L) {
            forwarded.incrementAndGet();
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (ExecutionException | TimeoutException e) {
        log.warn("jobs of queue '{}' were pushed to {} and their ack failed; they are pushed again when their leases"
            + " end: {}", queue.name, options.list(), Errors.unwrap(e).toString());
      }
    }
  }

  private void handBack(List<Delivery> jobs) {
    Map<Integer, List<Delivery>> byPartition = new HashMap<>();
    for (Delivery d : jobs) {
      byPartition.computeIfAbsent(d.partition(), k -> new ArrayList<>()).add(d);
    }
    byPartition.forEach((p, list) -> ClaimRound.handBack(settling, p, list));
  }

  // ---- state ----

  /** The list key holds another type: nothing moves, and the loop looks again after a backoff. */
  private void misconfigured(String problem) {
    if (closed.get()) {
      return;
    }
    misconfiguredRounds++;
    String message = "key '" + options.list() + "' is not a list (" + problem + "); jobs of queue '" + queue.name
        + "' wait in delayq until it is deleted or renamed";
    if (state != ForwarderStatus.State.MISCONFIGURED) {
      log.warn("cannot forward to {}: {}; checking again with backoff", target, message);
    } else {
      log.debug("still misconfigured ({} rounds): {}", misconfiguredRounds, message);
    }
    state = ForwarderStatus.State.MISCONFIGURED;
    lastError = message;
    lastErrorAt = Instant.now();
    long backoff = Math.min(MAX_MISCONFIGURED_BACKOFF_MILLIS,
        MIN_MISCONFIGURED_BACKOFF_MILLIS << Math.min(misconfiguredRounds - 1, 10));
    loop.pauseFor(backoff);
  }

  /** Whether the key is a list or absent now, asked directly. */
  private boolean listIsUsable() {
    try {
      String type = client.async().type(list).toCompletableFuture()
          .get(client.settings().commandTimeout().toNanos(), TimeUnit.NANOSECONDS);
      return "list".equals(type) || "none".equals(type);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } catch (ExecutionException | TimeoutException e) {
      return false;
    }
  }

  private void failing(Throwable cause) {
    if (closed.get()) {
      return;
    }
    if (state != ForwarderStatus.State.MISCONFIGURED) {
      state = ForwarderStatus.State.RETRYING;
    }
    lastError = String.valueOf(Errors.unwrap(cause));
    lastErrorAt = Instant.now();
  }

  private void healthy() {
    if (closed.get()) {
      return;
    }
    if (state == ForwarderStatus.State.MISCONFIGURED || state == ForwarderStatus.State.RETRYING) {
      log.info("forwarding queue '{}' to {} again", queue.name, target);
    }
    misconfiguredRounds = 0;
    state = ForwarderStatus.State.RUNNING;
  }
}
