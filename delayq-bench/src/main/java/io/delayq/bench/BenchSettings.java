package io.delayq.bench;

import java.time.Duration;
import java.util.List;

/**
 * How big each scenario is: the full run the issue asks for, or the quick smoke run for CI.
 *
 * @param quick whether this is the quick mode
 * @param workerThreads consumer threads (delayq: handler concurrency) in every scenario
 * @param enqueueJobs jobs per enqueue run (sync and bulk)
 * @param drainJobs jobs due when the workers of the drain scenario start
 * @param steadyRatePerSecond jobs scheduled per second in the steady scenario
 * @param steadyDuration how long the steady producer runs
 * @param steadyDueIn how long after its enqueue a steady job is due
 * @param idleDuration how long idle workers are watched
 * @param memoryJobs pending jobs in the memory scenario
 * @param backlogSizes pending, not-yet-due jobs in the backlog-growth runs
 * @param backlogDueJobs due jobs dispatched over each backlog
 * @param redissonMaxBacklog largest backlog Redisson is loaded with (loading it is slow)
 * @param backlogTimeout longest a backlog run may dispatch before it is stopped and its rate so far reported
 * @param partitionCounts delayq partition counts compared
 * @param partitionJobs jobs drained per partition count
 * @param clusterJobs jobs enqueued, and jobs drained, per partition count and topology in the cluster
 *     scenario (which uses {@code partitionCounts} too)
 * @param durableOneJobs jobs scheduled one at a time, in each mode (plain, durable), in the durable scenario
 * @param durableBulkJobs jobs scheduled with the bulk call, in each mode, in the durable scenario
 * @param ceilingRequests ZADDs per redis-benchmark run without pipelining
 * @param ceilingPipelinedRequests ZADDs per pipelined redis-benchmark run
 * @param bulkChunk jobs per bulk call
 * @param loadThreads threads that load large backlogs
 * @param warmupJobs jobs each contender handles before anything is measured
 * @param httpWorkers long-polling workers of the HTTP scenario, each on its own connection
 * @param httpIdleConnections idle keep-alive connections held open during the HTTP scenario
 * @param httpClaimMax {@code max} of every claim in the HTTP scenario
 * @param httpDrainJobs jobs drained per way of settling in the HTTP scenario
 * @param httpWarmupJobs jobs the HTTP scenario's untimed warm-up drains
 * @param httpWarmupSteady how long the HTTP scenario's untimed warm-up runs steady after its drain
 * @param httpSteadyDuration how long the HTTP scenario's steady producer runs (at {@code
 *     steadyRatePerSecond}, each job due {@code steadyDueIn} after it is scheduled)
 */
record BenchSettings(
    boolean quick,
    int workerThreads,
    int enqueueJobs,
    int drainJobs,
    int steadyRatePerSecond,
    Duration steadyDuration,
    Duration steadyDueIn,
    Duration idleDuration,
    int memoryJobs,
    List<Integer> backlogSizes,
    int backlogDueJobs,
    int redissonMaxBacklog,
    Duration backlogTimeout,
    List<Integer> partitionCounts,
    int partitionJobs,
    int clusterJobs,
    int durableOneJobs,
    int durableBulkJobs,
    int ceilingRequests,
    int ceilingPipelinedRequests,
    int bulkChunk,
    int loadThreads,
    int warmupJobs,
    int httpWorkers,
    int httpIdleConnections,
    int httpClaimMax,
    int httpDrainJobs,
    int httpWarmupJobs,
    Duration httpWarmupSteady,
    Duration httpSteadyDuration) {

  /** The run the issue specifies. */
  static BenchSettings full() {
    return new BenchSettings(false, 4, 200_000, 200_000, 2_000, Duration.ofSeconds(20), Duration.ofSeconds(1),
        Duration.ofSeconds(10), 1_000_000, List.of(10_000, 1_000_000, 10_000_000), 50_000, 1_000_000,
        Duration.ofSeconds(30), List.of(1, 4, 16), 200_000, 200_000, 20_000, 200_000, 200_000, 1_000_000, 10_000, 4,
        5_000, 64, 256, 100, 50_000, 50_000, Duration.ofSeconds(5), Duration.ofSeconds(10));
  }

  /** Small counts: checks the harness end to end in well under two minutes. */
  static BenchSettings quickMode() {
    return new BenchSettings(true, 4, 20_000, 20_000, 2_000, Duration.ofSeconds(3), Duration.ofSeconds(1),
        Duration.ofSeconds(2), 100_000, List.of(10_000, 100_000), 5_000, 10_000,
        Duration.ofSeconds(10), List.of(1, 4, 16), 10_000, 10_000, 2_000, 20_000, 50_000, 300_000, 10_000, 4, 2_000,
        64, 256, 100, 5_000, 2_000, Duration.ofSeconds(1), Duration.ofSeconds(2));
  }

  int steadyJobs() {
    return (int) (steadyRatePerSecond * steadyDuration.toMillis() / 1000);
  }

  int httpSteadyJobs() {
    return (int) (steadyRatePerSecond * httpSteadyDuration.toMillis() / 1000);
  }
}
