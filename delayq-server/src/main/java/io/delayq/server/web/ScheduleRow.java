package io.delayq.server.web;

import io.delayq.Schedule;
import io.delayq.ScheduleInfo;
import io.delayq.server.http.PathCodec;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One row of the Schedules page: a stored schedule as people read it. Paths are relative to the
 * dashboard's prefix, with every segment percent-encoded.
 *
 * @param queue the schedule's queue
 * @param name the schedule's name
 * @param timing {@code cron 0 9 * * *} or {@code every 1 h 30 min}
 * @param zone the zone its cron expression is read in ({@code UTC} by default)
 * @param upcoming its next occurrences (at most {@link #UPCOMING}), in its zone and in UTC
 * @param paused whether it is paused
 * @param lastOutcome what it did last, in a sentence: when it last fired and as which job, or that it has not fired yet
 * @param fired occurrences handed to workers so far
 * @param skipped occurrences skipped by the misfire or overlap policy
 * @param lastJobId the job of its last occurrence, or null
 * @param pendingJobId the job of its next occurrence, or null (paused, or ended)
 */
public record ScheduleRow(
    String queue,
    String name,
    String timing,
    String zone,
    List<Occurrence> upcoming,
    boolean paused,
    String lastOutcome,
    long fired,
    long skipped,
    String lastJobId,
    String pendingJobId) {

  /** How many next occurrences a row lists. */
  public static final int UPCOMING = 5;

  /**
   * One occurrence as the page shows it.
   *
   * @param local the instant in the schedule's zone, e.g. {@code Wed 2026-12-02 09:00:00 +01:00}
   * @param utc the same instant in UTC, for the title on hover
   * @param iso the instant in ISO-8601 UTC, for a {@code <time datetime>}
   * @param brief the instant in the schedule's zone in one short line, e.g. {@code Wed 12-02 09:00 +01:00}
   */
  public record Occurrence(String local, String utc, String iso, String brief) {
    static Occurrence of(Instant at, ZoneId zone) {
      return new Occurrence(Display.inZone(at, zone), Display.utc(at), at.toString(), Display.inZoneBrief(at, zone));
    }
  }

  public ScheduleRow {
    Objects.requireNonNull(queue, "queue");
    Objects.requireNonNull(name, "name");
    upcoming = List.copyOf(upcoming);
  }

  /** The row of {@code info}, a schedule of {@code queue}. */
  public static ScheduleRow of(String queue, ScheduleInfo info) {
    Schedule schedule = info.schedule();
    ZoneId zone = schedule.zone();
    List<Occurrence> next = new ArrayList<>();
    for (Instant at : info.upcoming(UPCOMING)) {
      next.add(Occurrence.of(at, zone));
    }
    return new ScheduleRow(
        queue,
        info.name(),
        timing(schedule),
        zone.equals(ZoneOffset.UTC) ? "UTC" : zone.getId(),
        next,
        schedule.paused(),
        lastOutcome(info),
        info.fired(),
        info.skipped(),
        info.lastJobId(),
        info.pendingJobId());
  }

  /** {@code cron <expression>} or {@code every <interval>}. */
  static String timing(Schedule schedule) {
    return schedule.cron() != null ? "cron " + schedule.cron() : "every " + Display.span(schedule.every());
  }

  /**
   * What the schedule did last: {@code Last fired Wed 2026-12-02 09:00:00 +01:00 as job
   * digest@2026-12-02T08:00:00Z; 12 fired, 1 skipped}, or {@code Not fired yet; 0 fired, 2 skipped}.
   */
  static String lastOutcome(ScheduleInfo info) {
    String counts = info.fired() + " fired, " + info.skipped() + " skipped";
    if (info.lastRun() == null) {
      return "Not fired yet; " + counts;
    }
    String job = info.lastJobId() == null ? "" : " as job " + info.lastJobId();
    return "Last fired " + Display.inZone(info.lastRun(), info.schedule().zone()) + job + "; " + counts;
  }

  /** {@code /queues/<queue>/schedules}. */
  public String queueSchedulesPath() {
    return "/queues/" + PathCodec.encodeSegment(queue) + "/schedules";
  }

  /** {@code /queues/<queue>}. */
  public String queuePath() {
    return "/queues/" + PathCodec.encodeSegment(queue);
  }

  /** The page of the next occurrence's job, or null when there is none. */
  public String pendingJobPath() {
    return pendingJobId == null ? null : jobPath(pendingJobId);
  }

  /** The page of the last occurrence's job, or null when there is none. */
  public String lastJobPath() {
    return lastJobId == null ? null : jobPath(lastJobId);
  }

  /** Where an action on this schedule is posted: {@code pause}, {@code resume} or {@code run}. */
  public String actionPath(String action) {
    return queueSchedulesPath() + "/" + PathCodec.encodeSegment(name) + "/" + action;
  }

  private String jobPath(String id) {
    return queuePath() + "/jobs/" + PathCodec.encodeSegment(id);
  }
}
