package io.delayq;

/**
 * Which jobs of a queue {@link QueueAdmin#listJobs} lists, and in what order. Each is read from
 * one sorted set per partition, merged across partitions in the order given here (ties by id, in
 * byte order); "now" is the Redis server's clock.
 *
 * @since 0.2.0
 */
public enum JobFilter {
  /** Jobs waiting for their time, due or not, by due time (earliest first). */
  SCHEDULED,
  /** Scheduled jobs whose time has come and that no worker has claimed yet, by due time. */
  DUE,
  /**
   * Jobs a worker holds under a lease that still runs, by lease deadline (soonest first), each
   * with {@link JobInfo#leaseUntil()}.
   */
  ACTIVE,
  /**
   * Jobs whose lease ended without an ack and that no claim has recovered yet (see {@link
   * JobState#EXPIRED}), by lease deadline.
   */
  EXPIRED,
  /** Jobs that used all their attempts, by the time they were given up on (oldest first), each with its last error. */
  DEAD
}
