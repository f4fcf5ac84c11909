package io.delayq.internal;

import io.delayq.Schedule;
import io.delayq.internal.cron.Cron;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The occurrences of one schedule, in epoch milliseconds: a cron expression read in the
 * schedule's zone, or a fixed interval counted from an anchor (an interval schedule's first due
 * time), bounded by the schedule's start and end. The next occurrence is always computed from the
 * one before it, never from "now", so a schedule does not drift.
 */
public final class Recurrence {
  private final Schedule schedule;
  private final Cron cron;
  private final long everyMillis;
  private final long anchorMillis;
  private final long startMillis;
  private final long endMillis;

  private Recurrence(Schedule schedule, long anchorMillis) {
    this.schedule = schedule;
    this.cron = schedule.cron() == null ? null : Cron.parse(schedule.cron());
    this.everyMillis = schedule.every() == null ? 0 : schedule.every().toMillis();
    this.startMillis = schedule.startAt() == null ? Long.MIN_VALUE : schedule.startAt().toEpochMilli();
    this.endMillis = schedule.endAt() == null ? Rules.MAX_DUE_MILLIS : schedule.endAt().toEpochMilli();
    this.anchorMillis = schedule.startAt() != null ? startMillis : anchorMillis;
  }

  /** A schedule's occurrences; {@code anchorMillis} places an interval schedule's (ignored for cron). */
  public static Recurrence of(Schedule schedule, long anchorMillis) {
    return new Recurrence(schedule, anchorMillis);
  }

  /** As {@link #of(Schedule, long)} for a schedule whose interval counts from now. */
  public static Recurrence of(Schedule schedule) {
    return new Recurrence(schedule, System.currentTimeMillis() + (schedule.every() == null ? 0 : schedule.every().toMillis()));
  }

  /** The interval schedule's anchor: its start, or the one it was given. */
  long anchorMillis() {
    return anchorMillis;
  }

  boolean isInterval() {
    return cron == null;
  }

  /** The first occurrence strictly after {@code afterMillis}, or -1 when there is none (past the end). */
  public long nextAfter(long afterMillis) {
    long from = Math.max(afterMillis, startMillis == Long.MIN_VALUE ? Long.MIN_VALUE : startMillis - 1);
    long next;
    if (cron != null) {
      Instant found = cron.nextAfter(Instant.ofEpochMilli(from), schedule.zone());
      next = found == null ? -1 : found.toEpochMilli();
    } else if (from < anchorMillis) {
      next = anchorMillis;
    } else {
      long steps = (from - anchorMillis) / everyMillis + 1;
      next = anchorMillis + steps * everyMillis;
    }
    return next < 0 || next > endMillis ? -1 : next;
  }

  /**
   * The next {@code count} occurrences from {@code first} on (inclusive), or from the first after
   * now when {@code first} is null; fewer when the schedule ends first.
   */
  public List<Instant> upcoming(Instant first, int count) {
    List<Instant> out = new ArrayList<>(Math.max(0, count));
    long at = first != null ? first.toEpochMilli() : nextAfter(System.currentTimeMillis());
    while (at >= 0 && out.size() < count) {
      out.add(Instant.ofEpochMilli(at));
      at = nextAfter(at);
    }
    return out;
  }

  /**
   * How many occurrences lie from {@code from} (inclusive) to {@code to} (exclusive; -1 for "to
   * the end"): exact for an interval, counted up to {@code bound} for a cron expression.
   */
  long countBetween(long from, long to, int bound) {
    if (from < 0) {
      return 0;
    }
    if (cron == null && to >= 0) {
      return to <= from ? 0 : (to - from + everyMillis - 1) / everyMillis;
    }
    long n = 0;
    for (long at = from; at >= 0 && (to < 0 || at < to) && n < bound; at = nextAfter(at)) {
      n++;
    }
    return n;
  }

  /**
   * Refuses a schedule that would never fire after {@code nowMillis}: an end that is past, or no
   * occurrence left before the year 9999 (a paused one is not checked). The store checks it with
   * the Redis clock; the server checks it first with its own, so that a refused request creates no
   * queue.
   */
  public static void checkFires(Schedule schedule, long nowMillis) {
    if (schedule.paused()) {
      return;
    }
    if (schedule.endAt() != null && schedule.endAt().toEpochMilli() <= nowMillis) {
      throw new io.delayq.InvalidRequestException(
          "endAt", "is " + schedule.endAt() + ", which is past (the clock reads " + Instant.ofEpochMilli(nowMillis)
              + "); the schedule would never fire. Give a later end, or none");
    }
    long every = schedule.every() == null ? 0 : schedule.every().toMillis();
    if (of(schedule, nowMillis + every).nextAfter(nowMillis) < 0) {
      throw new io.delayq.InvalidRequestException(
          "cron/every", "schedule '" + schedule.name() + "' has no occurrence after " + Instant.ofEpochMilli(nowMillis)
              + (schedule.cron() != null ? " for cron '" + schedule.cron() + "'" : "")
              + (schedule.startAt() != null ? ", startAt " + schedule.startAt() : "")
              + (schedule.endAt() != null ? ", endAt " + schedule.endAt() : "")
              + " (occurrences are searched up to the year 9999); check them");
    }
  }
}
