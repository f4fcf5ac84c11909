package io.delayq;

/**
 * Counts of one queue, summed over its partitions.
 *
 * @param queue the queue's name
 * @param partitions how many partitions the queue has
 * @param scheduled jobs waiting, due or not
 * @param due jobs whose time has come but that no worker has claimed yet
 * @param active jobs held by a worker under a lease that is still running
 * @param expired jobs whose lease ended without an ack, not yet recovered by a claim
 * @param dead jobs that used all their attempts
 * @param paused whether claiming is paused
 * @since 0.1.0
 */
public record QueueStats(
    String queue,
    int partitions,
    long scheduled,
    long due,
    long active,
    long expired,
    long dead,
    boolean paused) {}
