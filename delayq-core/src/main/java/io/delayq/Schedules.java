package io.delayq;

import java.util.List;
import java.util.Optional;

/**
 * The recurring schedules of one queue, from {@link JobQueue#schedules()}. A schedule is stored
 * in Redis with its queue, and fires as long as any worker (or forwarder, or pull consumer) of the
 * queue is alive: there is no scheduler process and no leader. Each occurrence is an ordinary job
 * with the id {@code <name>@<due instant, ISO-8601 UTC>} (with {@code ~<n>} appended on a queue of
 * several partitions, to keep it in the schedule's partition), created by the same atomic step that
 * hands out the occurrence before it; any number of processes may store, pause or advance a
 * schedule at once, and each occurrence still has one job.
 *
 * <p>The next occurrence is computed from the previous one's due time, never from when it ran, so
 * a schedule does not drift. Storing a schedule again (a new cron, zone or payload) replaces its
 * pending occurrence in the same step: no occurrence fires twice and none is lost, however fast
 * two updates race. See docs/SCHEDULES.md for the misfire, overlap and daylight-saving rules.
 *
 * @since 0.4.0
 */
public interface Schedules {
  /**
   * Stores a schedule, or replaces the one with its name. A new schedule's first occurrence is its
   * first after now (by the Redis clock) and at or after {@link Schedule#startAt}. A replaced one
   * keeps its place in time: with the same timing (cron or interval, zone, start and end) its
   * pending occurrence stays as it is, late or not, so an application that stores its schedules at
   * startup after a downtime sees the misfire policy applied to what it missed; with a new timing,
   * the new definition's first occurrence after the last one handed out, and not more than the
   * grace before now (so an update at 09:00:00.2 of a schedule due at 09:00 that no worker took yet
   * does not lose that run).
   *
   * @throws InvalidRequestException when the payload is larger than the client's limit, when
   *     {@link Schedule#endAt} is past, or when the schedule has no occurrence left before the year
   *     9999
   */
  ScheduleInfo set(Schedule schedule);

  /** The schedule with this name, or empty. */
  Optional<ScheduleInfo> get(String name);

  /** Every schedule of the queue, by name; each definition is read, payload included. */
  List<ScheduleInfo> list();

  /**
   * One page of the queue's schedules, by name: those after {@code cursor} (null for the first
   * page), at most {@code limit} (1 to 1000).
   */
  Page<ScheduleInfo> list(String cursor, int limit);

  /**
   * Removes a schedule and its pending occurrence. An occurrence a worker holds now runs to its end.
   *
   * @return whether there was such a schedule
   */
  boolean remove(String name);

  /**
   * Stops creating occurrences: the pending one is removed (one a worker holds runs to its end).
   *
   * @throws ScheduleNotFoundException when there is no such schedule
   */
  ScheduleInfo pause(String name);

  /**
   * Starts creating occurrences again, from the first one after now (and after the last one handed
   * out): occurrences that fell in the pause are not run, and are not misfires.
   *
   * @throws ScheduleNotFoundException when there is no such schedule
   */
  ScheduleInfo resume(String name);

  /**
   * Creates one extra job now with the schedule's payload, outside its sequence: the pending
   * occurrence stays as it is, and the overlap policy does not apply.
   *
   * @throws ScheduleNotFoundException when there is no such schedule
   */
  ScheduledJob runNow(String name);
}
