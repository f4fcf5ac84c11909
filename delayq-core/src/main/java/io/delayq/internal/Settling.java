package io.delayq.internal;

import io.delayq.Backoff;
import io.delayq.InvalidRequestException;
import io.delayq.JobState;
import io.delayq.LeaseExpiredException;
import io.delayq.PullConsumer.Settled;
import io.delayq.PullConsumer.Settlement;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Ack, nack, extend and release of deliveries, each carrying its fencing token. They go over the
 * client's worker connection, so they never wait behind a producer's pipelined schedule batches.
 */
final class Settling {
  private static final int MAX_ERROR_CHARS = 2_000;
  /** Acks per script call: bounds the work of one call on Redis. */
  static final int MAX_ACKS_PER_CALL = 500;
  private static final byte[] BURY = Keys.bytes("1");
  private static final byte[] RETRY = Keys.bytes("0");

  private final QueueContext queue;

  Settling(QueueContext queue) {
    this.queue = queue;
  }

  String queueName() {
    return queue.name;
  }

  QueueContext queue() {
    return queue;
  }

  ScriptRunner runner() {
    return queue.client.workerScripts();
  }

  /** One delivery, as settling calls name it. */
  record Held(String id, long token) {}

  /** Acks many deliveries of one partition in one call; the answer holds 1 (done) or 0 (refused) each. */
  CompletableFuture<List<Long>> ackAll(int p, List<Held> held) {
    return queue.<List<Long>>run(runner(), Script.ACK, p, pairs(held)).thenApply(done -> {
      queue.meters().acked(ones(done));
      return done;
    });
  }

  /** Hands many deliveries of one partition back uncounted, due at once; 1 (released) or 0 (no longer held) each. */
  CompletableFuture<List<Long>> releaseAll(int p, List<Held> held) {
    return releaseAll(p, held, 0);
  }

  /** As {@link #releaseAll(int, List)}, the jobs due again after {@code dueInMillis}. */
  CompletableFuture<List<Long>> releaseAll(int p, List<Held> held, long dueInMillis) {
    byte[][] pairs = pairs(held);
    byte[][] args = new byte[pairs.length + 1][];
    args[0] = QueueContext.number(dueInMillis);
    System.arraycopy(pairs, 0, args, 1, pairs.length);
    return queue.<List<Long>>run(runner(), Script.RELEASE, p, args).thenApply(done -> {
      queue.meters().released(ones(done));
      return done;
    });
  }

  private static int ones(List<Long> done) {
    int n = 0;
    for (Long d : done) {
      if (d == 1L) {
        n++;
      }
    }
    return n;
  }

  CompletableFuture<JobState> nack(String id, long token, long retryMillis, boolean bury, String error) {
    String reason = error == null || error.isEmpty() ? "failed without a message" : error;
    if (reason.length() > MAX_ERROR_CHARS) {
      reason = reason.substring(0, MAX_ERROR_CHARS) + "…";
    }
    return queue
        .<List<Object>>run(
            runner(),
            Script.NACK,
            queue.partitionOf(id),
            Keys.bytes(id),
            FencingTokens.claimOf(token),
            QueueContext.number(retryMillis),
            bury ? BURY : RETRY,
            reason.getBytes(StandardCharsets.UTF_8))
        .thenApply(reply -> {
          if ((Long) reply.get(0) == 2L) {
            queue.meters().dead(1);
            return JobState.DEAD;
          }
          queue.meters().retried();
          return JobState.SCHEDULED;
        });
  }

  CompletableFuture<Long> extendAsync(String id, long token, long leaseMillis) {
    return queue.run(
        runner(), Script.EXTEND_LEASE, queue.partitionOf(id), Keys.bytes(id), FencingTokens.claimOf(token), QueueContext.number(leaseMillis));
  }

  /** A holder's own extension of its lease; allowed while the client's connections are open. */
  Instant extend(Delivery delivery, Duration lease) {
    long leaseMillis = Rules.checkLease(lease);
    long sent = System.nanoTime();
    Long until = queue.await(extendAsync(delivery.id(), delivery.token(), leaseMillis), delivery.id(), delivery.token());
    Instant end = Instant.ofEpochMilli(until);
    delivery.extended(end, sent, leaseMillis);
    return end;
  }

  /**
   * Settles many deliveries: the acks of a partition in calls of at most {@link
   * #MAX_ACKS_PER_CALL}, each nack on its own, all sent before any answer is awaited, every answer
   * awaited until one command timeout from now.
   */
  List<Settled> settleAll(List<Settlement> settlements) {
    Settled[] answers = new Settled[settlements.size()];
    Map<String, Integer> firstPlace = new HashMap<>();
    Map<Integer, List<Integer>> acksByPartition = new HashMap<>();
    List<Integer> nacks = new ArrayList<>();
    for (int i = 0; i < settlements.size(); i++) {
      Settlement s = settlements.get(i);
      Integer first = firstPlace.putIfAbsent(s.id(), i);
      if (first != null) {
        answers[i] = new Settled(s, Settled.Outcome.FAILED, new InvalidRequestException(
            "settlements[" + i + "].id", "'" + Rules.abbreviate(s.id()) + "' is settled by settlements[" + first
                + "] of this call already; name each job once per call"));
      } else if (s.action() == Settlement.Action.ACK) {
        acksByPartition.computeIfAbsent(queue.partitionOf(s.id()), p -> new ArrayList<>()).add(i);
      } else {
        nacks.add(i);
      }
    }
    List<CompletableFuture<?>> sent = new ArrayList<>();
    List<Runnable> collect = new ArrayList<>();
    acksByPartition.forEach((p, places) -> {
      for (int from = 0; from < places.size(); from += MAX_ACKS_PER_CALL) {
        List<Integer> chunk = places.subList(from, Math.min(places.size(), from + MAX_ACKS_PER_CALL));
        List<Held> held = new ArrayList<>(chunk.size());
        chunk.forEach(i -> held.add(new Held(settlements.get(i).id(), settlements.get(i).token())));
        CompletableFuture<List<Long>> reply = ackAll(p, held);
        sent.add(reply);
        collect.add(() -> {
          List<Long> done;
          try {
            done = answer(reply, null, 0);
          } catch (RuntimeException e) {
            chunk.forEach(i -> answers[i] = new Settled(settlements.get(i), Settled.Outcome.FAILED, e));
            return;
          }
          for (int k = 0; k < chunk.size(); k++) {
            Settlement s = settlements.get(chunk.get(k));
            answers[chunk.get(k)] = done.get(k) == 1L
                ? new Settled(s, Settled.Outcome.ACKED, null)
                : new Settled(s, Settled.Outcome.REFUSED, new LeaseExpiredException(queue.name, s.id(), s.token()));
          }
        });
      }
    });
    for (int i : nacks) {
      Settlement s = settlements.get(i);
      Duration wait = s.retryIn() != null ? s.retryIn() : Backoff.DEFAULT.delayAfter(1, ThreadLocalRandom.current());
      CompletableFuture<JobState> reply = nack(s.id(), s.token(), wait.toMillis(), false, s.error());
      sent.add(reply);
      collect.add(() -> {
        try {
          JobState state = answer(reply, s.id(), s.token());
          answers[i] = new Settled(s, state == JobState.DEAD ? Settled.Outcome.DEAD : Settled.Outcome.RETRYING, null);
        } catch (LeaseExpiredException e) {
          answers[i] = new Settled(s, Settled.Outcome.REFUSED, e);
        } catch (RuntimeException e) {
          answers[i] = new Settled(s, Settled.Outcome.FAILED, e);
        }
      });
    }
    awaitAll(sent);
    collect.forEach(Runnable::run);
    return List.of(answers);
  }

  /** Waits up to one command timeout for every call; those still unanswered then are reported as such. */
  private void awaitAll(List<CompletableFuture<?>> sent) {
    try {
      CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new))
          .get(queue.client.settings().commandTimeout().toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // each call's own answer (or the lack of one) is read by the caller
    }
  }

  /** The answer of a call {@link #awaitAll} waited for, its failure mapped as the single call maps it. */
  private <T> T answer(CompletableFuture<T> reply, String id, long token) {
    String uri = queue.client.displayUri();
    if (!reply.isDone()) {
      throw Thread.currentThread().isInterrupted()
          ? Errors.interrupted(uri, null)
          : Errors.noAnswer(uri, queue.client.settings().commandTimeout(), null);
    }
    return Errors.await(reply, Duration.ZERO, uri, queue.name, id, token);
  }

  /** Waits for a by-id settle call and turns a refusal into {@link LeaseExpiredException}. */
  boolean single(CompletableFuture<List<Long>> reply, String id, long token) {
    return queue.await(reply, id, token).get(0) == 1L;
  }

  void refused(String id, long token) {
    throw new LeaseExpiredException(queue.name, id, token);
  }

  private static byte[][] pairs(List<Held> held) {
    byte[][] args = new byte[held.size() * 2][];
    for (int i = 0; i < held.size(); i++) {
      args[2 * i] = Keys.bytes(held.get(i).id());
      args[2 * i + 1] = FencingTokens.claimOf(held.get(i).token());
    }
    return args;
  }
}
