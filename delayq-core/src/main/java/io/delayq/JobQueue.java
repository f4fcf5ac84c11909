package io.delayq;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * One named queue. This interface is the producer's side (schedule jobs, look them up, cancel or
 * move them); {@link #startWorkers} runs a handler on its due jobs, {@link #pull()} gives the
 * claim-and-settle calls for a loop of one's own, and {@link #admin()} the operator's. Obtained from
 * {@link Delayq#queue(String)}; thread-safe.
 *
 * <p>Every operation on one job is a single atomic Lua script on the job's partition. Times are
 * the Redis server's: a job is never handed out before its due time by that clock.
 *
 * @since 0.1.0
 */
public interface JobQueue {
  String name();

  /** How many partitions the queue's jobs are spread over; fixed when the queue is first used. */
  int partitions();

  /**
   * Schedules one job.
   *
   * @throws JobActiveException when the request replaces a job a worker holds now
   * @throws OutcomeUnknownException when Redis did not answer in time; scheduling the same request
   *     again is then safe if it uses {@link DuplicatePolicy#KEEP} (see the exception)
   */
  ScheduledJob schedule(JobRequest request);

  /**
   * Schedules many jobs in pipelined round trips. Every request is checked before any is sent, so a
   * bad one fails the call with nothing written; the answers are in the order of the requests.
   */
  List<ScheduledJob> scheduleAll(List<JobRequest> requests);

  /**
   * Removes a scheduled job.
   *
   * @return whether it was removed; {@code false} when no scheduled job has that id
   * @throws JobActiveException when a worker holds it now
   */
  boolean cancel(String id);

  /**
   * Moves a scheduled job to a new time, keeping its payload and attempts.
   *
   * @throws JobNotFoundException when no scheduled job has that id
   * @throws JobActiveException when a worker holds it now
   */
  ScheduledJob reschedule(String id, Duration delay);

  /** As {@link #reschedule(String, Duration)}, to an instant; one in the past means due now. */
  ScheduledJob reschedule(String id, Instant runAt);

  /** The job with this id, in whatever state, or empty when the queue does not know it. */
  Optional<JobInfo> get(String id);

  /** Starts workers that run {@code handler} for every due job of this queue. */
  Workers startWorkers(JobHandler handler, WorkerOptions options);

  /**
   * Claim and settle by hand.
   *
   * @since 0.2.0
   */
  PullConsumer pull();

  /**
   * Counts, pause and resume, dead letters, stored defaults.
   *
   * @since 0.2.0
   */
  QueueAdmin admin();

  /**
   * Starts forwarding this queue's due jobs to a Redis list, for consumers that read one ({@code
   * BRPOP}, {@code BLMOVE}) instead of running a handler here. On a single Redis, and on a Redis
   * Cluster for partitions in the list's hash slot, each job is moved by one atomic script: it is
   * in the queue or in the list, never in neither and never in both. Elsewhere a job is leased,
   * pushed, then acked: at least once, one duplicate possible when the forwarder dies between push
   * and ack. {@link Forwarder#target()} says which mode runs. Jobs are never pushed before they
   * are due, nor while the queue is paused. See docs/LIST-FORWARDING.md.
   *
   * @since 0.3.0
   */
  Forwarder forwardToList(ListForwarding options);

  /**
   * Starts moving the members of a hand-rolled sorted-set delay queue into this queue, in the
   * background, until the bridge is closed: its producers need not change, and its old consumers
   * may keep running meanwhile (each member goes to them or to delayq, never both). The source is
   * checked first (its type, its units when detected, that it is not one of delayq's keys), and a
   * source that cannot be moved safely fails the call here.
   *
   * @throws InvalidRequestException when the source is not a sorted set, or when {@link
   *     SortedSetAdoption.ScoreUnit#DETECT} finds scores of both units or of no clear unit
   * @throws QueueConfigurationException on a Redis Cluster where the source and this queue's keys
   *     are in different slots: one script cannot move a member atomically between them
   * @since 0.3.0
   */
  SortedSetBridge adopt(SortedSetAdoption options);

  /**
   * Moves the members of a hand-rolled sorted-set delay queue into this queue now, in bounded
   * batches, and returns what it did: every member with {@link SortedSetAdoption.Mode#ALL} (future
   * ones still run at their time), the due ones with {@link SortedSetAdoption.Mode#DUE}. It passes
   * over the source until a pass finds nothing to move, at most ten times, so that producers
   * still writing cannot keep it going; {@link AdoptionReport#remaining()} says what is left.
   *
   * @throws InvalidRequestException as {@link #adopt}; a batch refused midway leaves the members
   *     moved before it in delayq and the rest in the source
   * @throws QueueConfigurationException as {@link #adopt}
   * @since 0.3.0
   */
  AdoptionReport importSortedSet(SortedSetAdoption options);

  /**
   * The queue's recurring schedules: cron or fixed-interval jobs that fire once per occurrence,
   * however many processes run.
   *
   * @since 0.4.0
   */
  Schedules schedules();
}
