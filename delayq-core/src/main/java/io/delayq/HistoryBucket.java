package io.delayq;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * What happened on a queue (or on all queues) in one minute or one hour, summed over every client
 * that worked there. Read by {@link QueueAdmin#historyByMinute}, {@link QueueAdmin#historyByHour}
 * and their {@link Delayq} counterparts. Each client counts in memory and adds its counts to Redis
 * every few seconds, so the current bucket lags by up to one flush interval, and a process that
 * crashes loses its counts since its last flush.
 *
 * @param start the bucket's start, by the Redis clock
 * @param width one minute or one hour
 * @param scheduled jobs created or replaced by {@code schedule} / {@code scheduleAll}
 * @param delivered jobs handed out by claims (push workers, pull claims, forwarders)
 * @param acked deliveries acknowledged
 * @param retried deliveries that ended without an ack and were scheduled again (nack, handler
 *     error, expired lease)
 * @param dead jobs moved to the dead-letter set
 * @param lateness how late the deliveries were: delivery time minus due time, by the Redis clock
 * @since 0.4.0
 */
public record HistoryBucket(
    Instant start,
    Duration width,
    long scheduled,
    long delivered,
    long acked,
    long retried,
    long dead,
    Lateness lateness) {

  public HistoryBucket {
    Objects.requireNonNull(start, "start");
    Objects.requireNonNull(width, "width");
    Objects.requireNonNull(lateness, "lateness");
  }

  /** The instant the bucket ends (exclusive). */
  public Instant end() {
    return start.plus(width);
  }
}
