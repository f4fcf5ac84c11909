package io.delayq;

import java.time.Instant;
import java.util.List;

/**
 * A stored schedule and where it stands.
 *
 * @param schedule the definition as stored
 * @param nextRun when its pending occurrence is due, or {@code null} while it is paused or after
 *     its end
 * @param pendingJobId the id of that occurrence's job, or {@code null}
 * @param lastRun the due time of the last occurrence that was handed to a worker, or {@code null}
 * @param lastJobId that occurrence's job id (look it up with {@link JobQueue#get}), or {@code null}
 * @param fired how many occurrences were handed to workers since the schedule was first stored
 * @param skipped how many were skipped, by the misfire or the overlap policy
 * @param version how many times the definition was stored (1 for a new schedule)
 * @since 0.4.0
 */
public record ScheduleInfo(
    Schedule schedule,
    Instant nextRun,
    String pendingJobId,
    Instant lastRun,
    String lastJobId,
    long fired,
    long skipped,
    long version) {

  /** The name of the schedule. */
  public String name() {
    return schedule.name();
  }

  /**
   * The next {@code count} occurrences from {@link #nextRun} on (or from now, for a paused
   * schedule), computed here by the same rule the queue uses; fewer when the schedule ends first.
   */
  public List<Instant> upcoming(int count) {
    return io.delayq.internal.Recurrence.of(schedule, nextRun != null ? nextRun.toEpochMilli() : lastRunAnchor()).upcoming(nextRun, count);
  }

  private long lastRunAnchor() {
    long every = schedule.every() == null ? 0 : schedule.every().toMillis();
    return lastRun != null ? lastRun.toEpochMilli() : System.currentTimeMillis() + every;
  }
}
