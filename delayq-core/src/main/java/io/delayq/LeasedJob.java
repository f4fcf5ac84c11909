package io.delayq;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/**
 * One delivery of a job: the job is the holder's until {@link #leaseUntil()}, and must be acked
 * or nacked before then, or it is delivered again. Every delivery has its own {@linkplain #token()
 * fencing token}; acks, nacks, extensions and releases carry it, so a former holder of the job can
 * never settle a later delivery of it, even one on the same attempt.
 *
 * <p>Handed to a {@link JobHandler} by {@link Workers}, or returned by {@link PullConsumer#claim}.
 *
 * @since 0.1.0
 */
public interface LeasedJob {
  /** The queue's name. */
  String queue();

  String id();

  /** The payload bytes (not copied: do not modify them). */
  byte[] payload();

  /** The payload decoded as UTF-8. */
  String payloadAsString();

  /**
   * Whether the payload was scheduled as JSON text ({@link JobRequest#ofJson}, or a JSON value
   * other than a string over HTTP).
   *
   * @since 0.2.0
   */
  default boolean payloadIsJson() {
    return false;
  }

  /**
   * Which attempt this is, counting from 1. A job handed back uncounted (by a closing worker, or
   * {@link PullConsumer#release}) is delivered again on the same attempt, with a new token.
   */
  int attempt();

  int maxAttempts();

  /** Whether a failure now sends the job to the dead-letter set. */
  default boolean isLastAttempt() {
    return attempt() >= maxAttempts();
  }

  /**
   * This delivery's fencing token: unique per delivery and never reused.
   *
   * @since 0.2.0
   */
  long token();

  /** When the job was due. */
  Instant runAt();

  Instant createdAt();

  /** When this delivery's lease ends, as last extended, by the Redis server's clock. */
  Instant leaseUntil();

  /**
   * The trace propagation headers (such as {@code traceparent}, {@code tracestate}, {@code
   * baggage}) that the observation of the schedule call stored with the job, for linking the work on
   * this delivery to the trace that scheduled it (see {@code
   * io.delayq.observation.ProcessTracingObservationHandler}). Empty when the job was scheduled by a
   * client without an observation registry or tracer, or when the headers took more than 1 KiB.
   * The same on every attempt.
   *
   * @since 0.2.0
   */
  default Map<String, String> traceHeaders() {
    return Map.of();
  }

  /**
   * Keeps the job for {@code lease} more, counted from now. Long handlers call this before their
   * lease ends.
   *
   * @return the new end of the lease
   * @throws LeaseExpiredException if this delivery no longer holds the job
   */
  Instant extendLease(Duration lease);
}
