package io.delayq;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * A job claimed by a worker: it is the worker's until {@link #leaseUntil()}, and must be acked or
 * nacked before then, or it is delivered again. The attempt number identifies this delivery: an
 * ack from an older attempt is refused.
 *
 * @since 0.1.0
 */
public final class LeasedJob {
  private final JobQueue queue;
  private final String id;
  private final byte[] payload;
  private final int attempt;
  private final int maxAttempts;
  private final Instant runAt;
  private final Instant createdAt;
  private volatile Instant leaseUntil;

  /** Made by the queue when a job is claimed; public for alternative queue implementations. */
  public LeasedJob(
      JobQueue queue,
      String id,
      byte[] payload,
      int attempt,
      int maxAttempts,
      Instant runAt,
      Instant leaseUntil,
      Instant createdAt) {
    this.queue = Objects.requireNonNull(queue, "queue");
    this.id = Objects.requireNonNull(id, "id");
    this.payload = Objects.requireNonNull(payload, "payload");
    this.attempt = attempt;
    this.maxAttempts = maxAttempts;
    this.runAt = runAt;
    this.leaseUntil = leaseUntil;
    this.createdAt = createdAt;
  }

  public String queue() {
    return queue.name();
  }

  public String id() {
    return id;
  }

  /** The payload bytes (not copied: do not modify them). */
  public byte[] payload() {
    return payload;
  }

  /** The payload decoded as UTF-8. */
  public String payloadAsString() {
    return new String(payload, StandardCharsets.UTF_8);
  }

  /** Which attempt this is, counting from 1. */
  public int attempt() {
    return attempt;
  }

  public int maxAttempts() {
    return maxAttempts;
  }

  /** Whether a failure now sends the job to the dead-letter set. */
  public boolean isLastAttempt() {
    return attempt >= maxAttempts;
  }

  /** When the job was due. */
  public Instant runAt() {
    return runAt;
  }

  public Instant createdAt() {
    return createdAt;
  }

  /** When this attempt's lease ends, as last extended. */
  public Instant leaseUntil() {
    return leaseUntil;
  }

  /**
   * Keeps the job for {@code lease} more, counted from now. Long handlers call this before their
   * lease ends.
   *
   * @return the new end of the lease
   * @throws LeaseExpiredException if the lease already ended
   */
  public Instant extendLease(Duration lease) {
    Instant until = queue.extendLease(id, attempt, lease);
    leaseUntil = until;
    return until;
  }

  @Override
  public String toString() {
    return "LeasedJob[queue=" + queue.name() + ", id=" + id + ", attempt=" + attempt + "/"
        + maxAttempts + ", runAt=" + runAt + ", leaseUntil=" + leaseUntil + ", payload="
        + payload.length + " bytes]";
  }
}
