package io.delayq.bench;

import java.util.List;

/**
 * One way of running delayed jobs on Redis, driven through its own public API only. An instance
 * works on one named queue; scenarios open one, use it, and close it, so no contender's threads or
 * connections linger into another's measurement.
 */
public interface Contender extends AutoCloseable {
  /** The name in the report's tables and plots. */
  String name();

  /** Schedules one job with the contender's plain synchronous call. */
  void enqueue(Job job);

  /**
   * Schedules jobs with the contender's bulk call (pipelined or asynchronous), returning when Redis
   * has acknowledged all of them. Safe to call from several threads at once.
   */
  void enqueueBulk(List<Job> jobs);

  /** Starts {@code threads} consumers that call {@code handler} for every job they get. */
  Running startWorkers(int threads, DeliveryHandler handler);

  /** Jobs the contender holds in Redis and has not delivered yet (or has delivered but not finished). */
  long pending();

  /** Stops everything the instance started and closes its connections. */
  @Override
  void close();

  /** Consumers started by {@link #startWorkers}. */
  interface Running {
    /** Stops them and waits until they have; jobs they already took are finished first. */
    void stop();
  }

  /** Opens instances of one contender. */
  interface Factory {
    /** The contender's name, as {@link Contender#name()}. */
    String name();

    /** A new instance on the Redis at {@code redisUri}, working on the queue (or key) named {@code queue}. */
    Contender open(String redisUri, String queue);
  }
}
