package io.delayq.internal;

import io.delayq.JobState;
import io.delayq.LeaseExpiredException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Ack, nack, extend and release of deliveries, each carrying its fencing token. They go over the
 * client's worker connection, so they never wait behind a producer's pipelined schedule batches.
 */
final class Settling {
  private static final int MAX_ERROR_CHARS = 2_000;
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
    return queue.run(runner(), Script.ACK, p, pairs(held));
  }

  /** Hands many deliveries of one partition back uncounted; 1 (released) or 0 (no longer held) each. */
  CompletableFuture<List<Long>> releaseAll(int p, List<Held> held) {
    return queue.run(runner(), Script.RELEASE, p, pairs(held));
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
        .thenApply(reply -> (Long) reply.get(0) == 2L ? JobState.DEAD : JobState.SCHEDULED);
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
