package io.delayq;

import java.util.List;

/**
 * The operator's side of a queue: counts, listings, pausing, dead letters, stored defaults,
 * deletion. Obtained from
 * {@link JobQueue#admin()}; thread-safe.
 *
 * @since 0.2.0
 */
public interface QueueAdmin {
  /** Counts summed over the partitions. */
  QueueStats stats();

  /**
   * Stops all workers of this queue, everywhere, from claiming; scheduling goes on.
   *
   * @throws QueueConfigurationException when the queue was deleted (by {@link #delete}, here or in
   *     another process): nothing is written, so a pause racing a delete never leaves a paused
   *     queue's keys behind (since 0.5.0; before, it wrote them)
   */
  void pause();

  /**
   * Lets workers claim again, waking them at once.
   *
   * @throws QueueConfigurationException when the queue was deleted; nothing is written (since
   *     0.5.0)
   */
  void resume();

  /** The most recently dead jobs, newest first, at most {@code limit} (1 to 1000). */
  List<JobInfo> deadJobs(int limit);

  /**
   * Gives a dead job a fresh set of attempts, due now.
   *
   * @return whether a dead job with that id was found
   */
  boolean requeueDead(String id);

  /**
   * Gives a dead job a fresh set of attempts, due now, only if it was given up on at or before
   * {@code diedNoLaterThan}: the check and the requeue are one atomic step in Redis. For acting on
   * dead jobs someone looked at and confirmed: a job that was requeued meanwhile and died again
   * later is left dead, for whoever looks next.
   *
   * @param diedNoLaterThan the latest burial time (to the millisecond) the job may have; null for
   *     any, as {@link #requeueDead(String)}
   * @return whether a dead job with that id, buried at or before {@code diedNoLaterThan}, was
   *     found and requeued
   * @since 0.5.0
   */
  boolean requeueDead(String id, java.time.Instant diedNoLaterThan);

  /** Deletes a dead job for good; returns whether one was found. */
  boolean deleteDead(String id);

  /**
   * Deletes a dead job for good only if it was given up on at or before {@code diedNoLaterThan};
   * the check and the delete are one atomic step in Redis (see {@link #requeueDead(String,
   * java.time.Instant)}).
   *
   * @param diedNoLaterThan the latest burial time (to the millisecond) the job may have; null for
   *     any, as {@link #deleteDead(String)}
   * @return whether a dead job with that id, buried at or before {@code diedNoLaterThan}, was
   *     found and deleted
   * @since 0.5.0
   */
  boolean deleteDead(String id, java.time.Instant diedNoLaterThan);

  /**
   * The defaults stored with the queue for callers that leave them out (the HTTP API's schedule
   * and claim): max attempts, and lease. Unset ones are the library defaults.
   */
  QueueDefaults defaults();

  /** Stores the queue's defaults; see {@link #defaults()}. */
  QueueDefaults setDefaults(QueueDefaults defaults);

  /**
   * Where a server should forward this queue's due jobs, as stored with the queue so that every
   * server instance reads the same: a text whose format the server defines (delayq-server keeps
   * a JSON object there), empty when none is set. Forwarders started in code ({@link
   * JobQueue#pull()}-based ones such as delayq-rabbitmq's) do not read it.
   *
   * @since 0.3.0
   */
  java.util.Optional<String> forwardingSpec();

  /**
   * Stores {@link #forwardingSpec()}; {@code null} or empty removes it. At most {@value
   * io.delayq.internal.Rules#MAX_FORWARDING_SPEC_BYTES} bytes of UTF-8.
   *
   * @since 0.3.0
   */
  void setForwardingSpec(String spec);

  /**
   * One page of the queue's jobs of one kind, in the order {@link JobFilter} gives, merged over
   * the partitions. Each job is as {@link JobQueue#get} shows it, payload, fencing token and holder
   * included; a page holds at most {@code limit} jobs and at most about 1 MiB of payloads (always
   * at least one job while any remain). Pass the page's {@link Page#nextCursor()} to get the next
   * one.
   *
   * <p>Reads only, and bounded: each partition is asked for at most {@code limit} jobs per call,
   * found in O(log N). A listing is not a snapshot: jobs that move while it is paged may appear on
   * no page or on two (a job rescheduled past the cursor shows again); a job that stays put shows
   * exactly once.
   *
   * @param cursor null for the first page, else a {@code nextCursor} of this same listing (same
   *     queue and filter)
   * @param limit 1 to 1000
   * @throws InvalidRequestException when the cursor is not one this listing gave out, or the
   *     limit is out of range
   * @since 0.2.0
   */
  Page<JobInfo> listJobs(JobFilter filter, String cursor, int limit);

  /**
   * As {@link #listJobs}, but without payloads: each {@link JobSummary} holds the job with an
   * empty payload, and the payload's size. Redis sends no payload bytes, so a page holds {@code
   * limit} jobs however large their payloads (the 1 MiB bound of {@code listJobs} does not apply),
   * for listings that show jobs without their bodies (a dashboard's tables). Same order, cursors
   * and guarantees as {@code listJobs}; the cursors of the two listings are not interchangeable.
   *
   * @param cursor null for the first page, else a {@code nextCursor} of this same listing
   * @param limit 1 to 1000
   * @throws InvalidRequestException when the cursor is not one this listing gave out, or the
   *     limit is out of range
   * @since 0.5.0
   */
  Page<JobSummary> listJobSummaries(JobFilter filter, String cursor, int limit);

  /**
   * Deletes the queue: every job in every state, its dead letters, the ids remembered for the
   * idempotency window, then its settings, and last its name from {@link Delayq#queueNames()}.
   * First it pauses the queue, so no worker claims anything while it runs; then it removes at
   * most 1,000 jobs per Redis call, partition by partition, so a large queue never blocks Redis
   * for other clients. This client's cached handle is dropped: a later {@link Delayq#queue} starts
   * a fresh queue with that name.
   *
   * <p>Without {@code force}, a queue whose workers hold jobs under running leases is refused,
   * with nothing deleted. With it, those jobs are deleted too, and their holders' acks, nacks and
   * extensions are refused from then on as for an expired lease. Leases that already ran out
   * (their worker is gone) never block a delete.
   *
   * <p>Stop producers first. A job scheduled while the delete runs is deleted with the rest when
   * it reaches its partition before the delete's last pass there; one that arrives after it (a
   * producer still scheduling, or a handle obtained before the delete, in this process or another,
   * which keeps addressing the same keys) survives in a queue that is no longer registered. Opening
   * the queue again with {@link Delayq#queue} registers it again, and with the same partition count
   * finds that job; calling {@code delete} again removes it.
   *
   * @param force whether to delete jobs that workers hold too
   * @return how many jobs were deleted (scheduled, held and dead)
   * @throws QueueBusyException when not forced and workers hold jobs of the queue
   * @since 0.2.0
   */
  long delete(boolean force);

  /**
   * This queue's history by minute, from the counters every client adds to Redis (see {@link
   * HistoryBucket}): the last {@code minutes} minutes, oldest first, ending with the current minute
   * by the Redis clock; minutes with no activity are present with zeros. One round trip.
   *
   * @param minutes 1 to 1440 (the minute buckets are kept for 24 hours)
   * @throws IllegalArgumentException when {@code minutes} is out of range
   * @since 0.4.0
   */
  List<HistoryBucket> historyByMinute(int minutes);

  /**
   * This queue's history by hour: the last {@code hours} hours, oldest first, ending with the
   * current hour; hours with no activity are present with zeros. One round trip.
   *
   * @param hours 1 to 168 (the hour buckets are kept for 7 days)
   * @throws IllegalArgumentException when {@code hours} is out of range
   * @since 0.4.0
   */
  List<HistoryBucket> historyByHour(int hours);
}
