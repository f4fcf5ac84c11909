package io.delayq.server.cli;

import io.delayq.JobInfo;
import io.delayq.QueueStats;
import io.delayq.ScheduledJob;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * What the commands need from delayq, done either on Redis directly ({@link DirectBackend}) or
 * through a running {@code delayq serve} ({@link HttpBackend}). Every method throws {@link
 * CliException} with the exit code and message to show; none creates a queue except {@link
 * #schedule}.
 */
interface Backend extends AutoCloseable {

  /** Where the commands go, for messages: a server URL or a Redis URL without its password. */
  String target();

  ScheduledJob schedule(String queue, Enqueue request);

  JobInfo get(String queue, String id);

  void cancel(String queue, String id);

  /** Exactly one of {@code delay} and {@code runAt} is set. */
  ScheduledJob reschedule(String queue, String id, Duration delay, Instant runAt);

  /** Every queue's counts, sorted by name. */
  List<QueueStats> stats();

  QueueStats stats(String queue);

  void pause(String queue);

  void resume(String queue);

  List<JobInfo> deadJobs(String queue, int limit);

  void requeueDead(String queue, String id);

  void deleteDead(String queue, String id);

  @Override
  void close();

  /**
   * A job to schedule, as the command line gave it.
   *
   * @param id the id, or null to have one generated
   * @param payload the payload bytes
   * @param delay how long from now, or null
   * @param runAt when, or null (at most one of delay and runAt)
   * @param maxAttempts attempts, or null for the queue's default
   * @param keep whether an existing job with the id stays as it is
   */
  record Enqueue(String id, byte[] payload, Duration delay, Instant runAt, Integer maxAttempts, boolean keep) {}
}
