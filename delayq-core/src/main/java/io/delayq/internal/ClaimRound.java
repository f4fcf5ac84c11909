package io.delayq.internal;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One claim round, the only way delayq leases jobs (workers, pull claims and long polls alike):
 * claims go to several partitions at once, and the round returns every job it leased or hands it
 * back. A partition that fails costs only its own share; one that answers after the round stopped
 * waiting (a timeout, an interrupt) has its jobs released as soon as its answer arrives, so no
 * job sits leased to nobody until its lease runs out.
 */
final class ClaimRound {
  private static final Logger log = LoggerFactory.getLogger(ClaimRound.class);
  /** Expired leases recovered per claim call: keeps every claim's work bounded. */
  private static final int RECOVER_PER_CLAIM = 100;

  /**
   * What one partition answered. Times: {@code redisMicros}, {@code nextWakeMillis} and {@code
   * deadTrimMillis} by that partition's node; the last is -1 without dead jobs and -2 when the
   * claim leased jobs and did not look (see claim.lua).
   */
  record Reply(int partition, long redisMicros, long nextWakeMillis, boolean paused, long deadTrimMillis,
      List<Delivery> jobs, long sentNanos, long arrivedNanos) {}

  /** What the round got: the jobs, each partition's answer, and the partitions that failed. */
  record Result(List<Delivery> jobs, List<Reply> replies, Map<Integer, Throwable> failures, boolean interrupted) {}

  private ClaimRound() {}

  /**
   * Claims {@code shares[i]} jobs from {@code partitions[i]} each, waiting for answers until
   * {@code deadlineNanos} by {@code ticker}.
   */
  static Result run(
      Settling settling, int[] partitions, int[] shares, long leaseMillis, long deadlineNanos, Ticker ticker) {
    QueueContext queue = settling.queue();
    ScriptRunner runner = settling.runner();
    List<CompletableFuture<Reply>> pending = new ArrayList<>(partitions.length);
    for (int i = 0; i < partitions.length; i++) {
      int p = partitions[i];
      long sent = ticker.nanoTime();
      pending.add(
          queue.<List<Object>>runWithKey(
                  runner,
                  Script.CLAIM,
                  p,
                  Keys.schedules(queue.name, p),
                  QueueContext.number(shares[i]),
                  QueueContext.number(leaseMillis),
                  QueueContext.number(RECOVER_PER_CLAIM),
                  queue.client.processIdBytes())
              .thenApply(reply -> parse(settling, p, reply, leaseMillis, sent, ticker.nanoTime())));
    }
    queue.schedules().sweepSoon(partitions, ticker.nanoTime());
    List<Delivery> jobs = new ArrayList<>();
    List<Reply> replies = new ArrayList<>(partitions.length);
    Map<Integer, Throwable> failures = new HashMap<>();
    boolean interrupted = false;
    for (int i = 0; i < pending.size(); i++) {
      CompletableFuture<Reply> reply = pending.get(i);
      if (interrupted) {
        handBackWhenAnswered(settling, reply);
        continue;
      }
      try {
        Reply r = reply.get(Math.max(0, deadlineNanos - ticker.nanoTime()), TimeUnit.NANOSECONDS);
        replies.add(r);
        jobs.addAll(r.jobs());
      } catch (TimeoutException e) {
        handBackWhenAnswered(settling, reply);
        failures.put(partitions[i], e);
      } catch (ExecutionException e) {
        failures.put(partitions[i], Errors.unwrap(e));
      } catch (InterruptedException e) {
        interrupted = true;
        handBackWhenAnswered(settling, reply);
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    return new Result(jobs, replies, failures, interrupted);
  }

  /** Releases, uncounted, whatever a claim nobody waits for any more leased. */
  static void handBackWhenAnswered(Settling settling, CompletableFuture<Reply> reply) {
    reply.thenAccept(late -> handBack(settling, late.partition(), late.jobs()));
  }

  static CompletableFuture<List<Long>> handBack(Settling settling, int partition, List<Delivery> jobs) {
    if (jobs.isEmpty()) {
      return CompletableFuture.completedFuture(List.of());
    }
    List<Settling.Held> held = new ArrayList<>(jobs.size());
    for (Delivery d : jobs) {
      held.add(new Settling.Held(d.id(), d.token()));
    }
    return settling.releaseAll(partition, held).whenComplete((done, error) -> {
      if (error != null) {
        log.warn("could not hand back {} job(s) of queue '{}'; they are delivered again when their leases end: {}",
            jobs.size(), settling.queueName(), Errors.unwrap(error).toString());
      }
    });
  }

  /** Entries before the first job in a claim's answer (see claim.lua). */
  private static final int HEADER = 7;

  private static Reply parse(Settling settling, int p, List<Object> reply, long leaseMillis, long sent, long arrived) {
    long nowMicros = (Long) reply.get(0);
    Instant leaseUntil = Instant.ofEpochMilli(nowMicros / 1000 + leaseMillis);
    long leaseEnds = sent + TimeUnit.MILLISECONDS.toNanos(leaseMillis);
    List<Delivery> jobs = new ArrayList<>((reply.size() - HEADER) / 4);
    long claim = reply.get(3) instanceof Long ? 0 : Long.parseLong(QueueContext.text(reply.get(3)));
    QueueMeters meters = settling.queue().meters();
    int recovered = ((Long) reply.get(5)).intValue();
    int buried = ((Long) reply.get(6)).intValue();
    meters.leasesExpired(recovered);
    meters.redelivered(recovered - buried);
    meters.dead(buried);
    if ((reply.size() - HEADER) % 4 == 1) {
      // why: the claim handed out occurrences of recurring schedules; their next ones are computed now
      List<String> names = new ArrayList<>();
      for (Object name : (List<?>) reply.get(reply.size() - 1)) {
        names.add(QueueContext.text(name));
      }
      settling.queue().schedules().tendSoon(names);
    }
    int place = 0;
    for (int i = HEADER; i + 3 < reply.size(); i += 4) {
      String id = QueueContext.text(reply.get(i));
      long token = FencingTokens.of(claim, place++);
      JobRecord record;
      try {
        record = JobRecord.decode((byte[]) reply.get(i + 3));
      } catch (RuntimeException e) {
        // why: one record nobody can read must not poison the batch; it goes dead with the reason
        log.warn("job '{}' of queue '{}' has a record that cannot be decoded ({}); it goes to the dead-letter set",
            id, settling.queueName(), e.getMessage());
        settling.nack(id, token, 0, true, "record cannot be decoded: " + e.getMessage());
        continue;
      }
      long dueMillis = Long.parseLong(QueueContext.text(reply.get(i + 1)));
      meters.delivered(nowMicros - dueMillis * 1000);
      jobs.add(
          new Delivery(
              settling,
              p,
              id,
              record,
              ((Long) reply.get(i + 2)).intValue(),
              token,
              Instant.ofEpochMilli(dueMillis),
              leaseUntil,
              leaseEnds));
    }
    return new Reply(p, nowMicros, (Long) reply.get(1), (Long) reply.get(2) == 1L, (Long) reply.get(4), jobs, sent,
        arrived);
  }
}
