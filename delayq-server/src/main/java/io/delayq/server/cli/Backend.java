package io.delayq.server.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.AdoptionReport;
import io.delayq.JobInfo;
import io.delayq.SortedSetAdoption;
import io.delayq.SortedSetBridge;
import io.delayq.server.forward.ForwardSpec;
import io.delayq.QueueStats;
import io.delayq.Schedule;
import io.delayq.ScheduleInfo;
import io.delayq.ScheduledJob;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * What the commands need from delayq, done either on Redis directly ({@link DirectBackend}) or
 * through a running {@code delayq serve} ({@link HttpBackend}). Every method throws {@link
 * CliException} with the exit code and message to show; none creates a queue except {@link
 * #schedule}, {@link #setSchedule} and {@link #setForwarding}.
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

  /**
   * One page of a queue's jobs in one state.
   *
   * @param cursor null for the first page, else the {@link JobPage#nextCursor} of the previous one
   * @param limit most jobs on the page
   */
  JobPage listJobs(String queue, ListedState state, String cursor, int limit);

  /**
   * Deletes a queue and all its jobs; refused (exit code 4) while workers hold some of them, unless
   * {@code force}.
   *
   * @return how many jobs were deleted with it
   */
  long deleteQueue(String queue, boolean force);

  /**
   * The queue's forwarding as stored ({@code forward} of {@code PUT /v1/queues/{queue}}), with this
   * server's forwarder status when going through a server; null when it has none.
   */
  JsonNode forwarding(String queue);

  /** Stores the queue's forwarding (the queue is created when new); {@code null} removes it. */
  void setForwarding(String queue, ForwardSpec spec);

  /**
   * One page of the queue's recurring schedules, by name.
   *
   * @param cursor null for the first page, else the {@link SchedulePage#nextCursor} of the previous one
   * @param limit most schedules on the page (a server may give fewer, to keep its answer small)
   */
  SchedulePage listSchedules(String queue, String cursor, int limit);

  /** One schedule; exit code 3 when the queue or the schedule does not exist. */
  ScheduleInfo getSchedule(String queue, String name);

  /**
   * Stores a schedule (the queue is created when new), or replaces the one with its name.
   *
   * @param maxAttemptsGiven whether the schedule's max attempts was asked for; otherwise the queue's
   *     stored default is used, as for a job enqueued without one
   */
  ScheduleInfo setSchedule(String queue, Schedule schedule, boolean maxAttemptsGiven);

  void removeSchedule(String queue, String name);

  ScheduleInfo pauseSchedule(String queue, String name);

  ScheduleInfo resumeSchedule(String queue, String name);

  /** One extra job due now with the schedule's payload, outside its sequence. */
  ScheduledJob runScheduleNow(String queue, String name);

  /** Moves a hand-rolled sorted-set queue's members into {@code queue} now (Redis only). */
  AdoptionReport importSortedSet(String queue, SortedSetAdoption options);

  /** Starts a bridge that keeps moving them until it is closed (Redis only). */
  SortedSetBridge adopt(String queue, SortedSetAdoption options);

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
   * @param partitions partitions of the queue if this creates it, or null for one (an existing queue
   *     with another count refuses, exit code 4)
   */
  record Enqueue(
      String id, byte[] payload, Duration delay, Instant runAt, Integer maxAttempts, boolean keep, Integer partitions) {}

  /** The states {@code delayq jobs ls} lists; {@code due} is the scheduled jobs whose time has come. */
  enum ListedState {
    SCHEDULED,
    DUE,
    ACTIVE,
    EXPIRED,
    DEAD;

    /** As the HTTP API and the command line write it. */
    String label() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /**
   * A page of jobs.
   *
   * @param nextCursor where the next page starts, or null when this is the last
   */
  record JobPage(List<JobInfo> jobs, String nextCursor) {
    public JobPage {
      jobs = List.copyOf(jobs);
    }
  }

  /**
   * A page of schedules.
   *
   * @param nextCursor where the next page starts, or null when this is the last
   */
  record SchedulePage(List<ScheduleInfo> schedules, String nextCursor) {
    public SchedulePage {
      schedules = List.copyOf(schedules);
    }
  }
}
