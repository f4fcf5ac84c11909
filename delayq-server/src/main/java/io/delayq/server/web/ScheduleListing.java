package io.delayq.server.web;

import io.delayq.Delayq;
import io.delayq.InvalidRequestException;
import io.delayq.JobQueue;
import io.delayq.Page;
import io.delayq.Schedule;
import io.delayq.ScheduleInfo;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;

/**
 * The rows of the Schedules pages, read without creating a queue: one queue's schedules by name,
 * or every queue's, found by walking the queue names. A shared Redis may hold thousands of queues
 * with no schedule, so a page of the all-queues listing looks at no more than {@link
 * #MAX_QUEUES_PER_PAGE} queues and shows no more than {@link #MAX_ROWS} schedules, and says where it
 * stopped; its cursor resumes exactly there, within a queue if need be.
 */
public final class ScheduleListing {
  /** Schedules one page shows at most. */
  public static final int MAX_ROWS = 100;
  /** Queues one page of the all-queues listing looks into at most. */
  public static final int MAX_QUEUES_PER_PAGE = 500;
  /** Queue names read per call. */
  private static final int NAMES_PER_READ = 200;
  /**
   * Definitions read per call: each is read whole, payload (up to the payload limit) included, so
   * a few at a time keep a page of large payloads from being held at once.
   */
  private static final int SCHEDULES_PER_READ = 20;

  private ScheduleListing() {}

  /**
   * One page of a listing.
   *
   * @param rows the schedules, by queue and then by name
   * @param nextCursor where the next page starts, or null on the last page
   * @param queuesScanned how many queues this page looked into
   * @param stoppedEarly whether it stopped at {@link #MAX_QUEUES_PER_PAGE} with queues left to look
   *     into (rather than at {@link #MAX_ROWS} rows, or at the end)
   * @param lastQueue the last queue this page looked into, or null
   */
  public record Result(List<ScheduleRow> rows, String nextCursor, int queuesScanned, boolean stoppedEarly, String lastQueue) {
    public Result {
      rows = List.copyOf(rows);
    }

    /** Whether another page follows. */
    public boolean hasNext() {
      return nextCursor != null;
    }
  }

  /**
   * One page of queue {@code queue}'s schedules, after the schedule named {@code cursor} (null: from the first).
   *
   * @throws InvalidRequestException (field {@code cursor}) when the cursor is not a schedule name
   */
  public static Result ofQueue(JobQueue queue, String cursor) {
    String after = cursor == null || cursor.isEmpty() ? null : checkCursor(cursor, () -> Schedule.checkName(cursor));
    List<ScheduleRow> rows = new ArrayList<>();
    boolean more = read(queue, after, rows);
    String next = more && !rows.isEmpty() ? rows.get(rows.size() - 1).name() : null;
    return new Result(rows, next, 1, false, queue.name());
  }

  /**
   * One page of every queue's schedules, from {@code cursor} (null: from the first queue).
   *
   * @throws InvalidRequestException (field {@code cursor}) when the cursor is not one this listing gave out
   */
  public static Result ofAllQueues(Delayq delayq, String cursor) {
    Position from = cursor == null || cursor.isEmpty() ? Position.START : Position.decode(cursor);
    List<ScheduleRow> rows = new ArrayList<>();
    String namesCursor = from.namesCursor();
    int scanned = 0;
    String lastDone = from.queue();
    while (true) {
      Page<String> names = delayq.queueNames(namesCursor, NAMES_PER_READ);
      for (String name : names.items()) {
        if (from.queue() != null) {
          int order = name.compareTo(from.queue());
          if (order < 0 || (order == 0 && from.schedule() == null)) {
            continue;
          }
        }
        if (scanned >= MAX_QUEUES_PER_PAGE || rows.size() >= MAX_ROWS) {
          return new Result(rows, new Position(namesCursor, lastDone, null).encode(), scanned,
              scanned >= MAX_QUEUES_PER_PAGE, lastDone);
        }
        scanned++;
        String after = name.equals(from.queue()) ? from.schedule() : null;
        Optional<JobQueue> queue = delayq.existingQueue(name);
        // why: a queue deleted since its name was listed has nothing to show
        boolean more = queue.isPresent() && read(queue.get(), after, rows);
        if (more) {
          String lastSchedule = rows.get(rows.size() - 1).name();
          return new Result(rows, new Position(namesCursor, name, lastSchedule).encode(), scanned, false, name);
        }
        lastDone = name;
      }
      if (names.nextCursor().isEmpty()) {
        return new Result(rows, null, scanned, false, lastDone);
      }
      namesCursor = names.nextCursor().get();
    }
  }

  /**
   * Adds the queue's schedules after {@code after} to {@code rows} until it holds {@link #MAX_ROWS}.
   *
   * @return whether the queue has schedules beyond those added
   */
  private static boolean read(JobQueue queue, String after, List<ScheduleRow> rows) {
    String from = after;
    while (rows.size() < MAX_ROWS) {
      Page<ScheduleInfo> page = queue.schedules().list(from, Math.min(SCHEDULES_PER_READ, MAX_ROWS - rows.size()));
      for (ScheduleInfo info : page.items()) {
        rows.add(ScheduleRow.of(queue.name(), info));
      }
      if (page.nextCursor().isEmpty()) {
        return false;
      }
      from = page.nextCursor().get();
    }
    return true;
  }

  private static <T> T checkCursor(String cursor, java.util.function.Supplier<T> parse) {
    try {
      return parse.get();
    } catch (RuntimeException e) {
      throw badCursor(cursor);
    }
  }

  private static InvalidRequestException badCursor(String cursor) {
    String shown = cursor.length() <= 64 ? cursor : cursor.substring(0, 61) + "...";
    return new InvalidRequestException(
        "cursor", "'" + shown + "' is not a cursor of this listing; leave it out to start at the first"
            + " schedule, or follow the page's Next link");
  }

  /**
   * Where a page of the all-queues listing starts: the queue-name cursor of the names that hold
   * its first queue, the queue the previous page ended at, and the schedule within that queue it
   * ended at (null when it ended after the whole queue).
   */
  record Position(String namesCursor, String queue, String schedule) {
    static final Position START = new Position(null, null, null);
    private static final String VERSION = "s1";

    String encode() {
      String text = String.join("\n", VERSION, orEmpty(namesCursor), orEmpty(queue), orEmpty(schedule));
      return Base64.getUrlEncoder().withoutPadding().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }

    static Position decode(String cursor) {
      return checkCursor(cursor, () -> {
        String text = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
        String[] parts = text.split("\n", -1);
        if (parts.length != 4 || !parts[0].equals(VERSION)) {
          throw new IllegalArgumentException("not a schedules cursor");
        }
        String queue = orNull(parts[2]);
        String schedule = orNull(parts[3]);
        if (queue != null) {
          io.delayq.internal.Rules.checkQueueName(queue);
        }
        if (schedule != null) {
          Schedule.checkName(schedule);
        }
        return new Position(orNull(parts[1]), queue, schedule);
      });
    }

    private static String orEmpty(String s) {
      return s == null ? "" : s;
    }

    private static String orNull(String s) {
      return s.isEmpty() ? null : s;
    }
  }
}
