package io.delayq.internal;

import io.delayq.DuplicatePolicy;
import io.delayq.JobRequest;
import io.delayq.Misfire;
import io.delayq.Schedule;
import io.delayq.ScheduleInfo;
import io.delayq.ScheduleNotFoundException;
import io.delayq.ScheduledJob;
import io.delayq.Schedules;
import io.lettuce.core.MapScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The recurring schedules of one queue. A schedule lives on the partition its name hashes to,
 * with every occurrence's job (see {@link #occurrenceId}), so that the claim that hands out one
 * occurrence creates the next in the same script (see {@code lua/_schedules.lua}). Java does the
 * calendar arithmetic the scripts cannot: it names each next occurrence ahead of time ("tending"),
 * right after the claim that needed it, and re-syncs a sequence that fell behind. Every write is a
 * script that applies only to the state it was computed from, so any number of processes may tend
 * the same schedule at once: one wins, the others find nothing left to do.
 */
final class ScheduleEngine implements Schedules {
  private static final Logger log = LoggerFactory.getLogger(ScheduleEngine.class);
  /** How often a queue's claimers look over its schedules for a sequence nobody tended. */
  private static final long SWEEP_EVERY_NANOS = TimeUnit.SECONDS.toNanos(10);
  /** Attempts of a tending write that lost a race: each loser rereads and recomputes. */
  private static final int MAX_RACES = 50;
  /** Missed occurrences walked past to re-sync a sequence after a downtime; beyond this it jumps to now. */
  private static final int MAX_WALK = 100_000;
  /** Occurrences passed over that a re-sync counts one by one (a cron's; an interval's are computed). */
  private static final int MAX_COUNTED = 1_000_000;
  private static final int STATE_FIELDS = 16;
  /**
   * The field of the queue's settings hash that says the queue has (or had) schedules: the sweep
   * reads it first, so a queue that never had one costs one read per sweep, not a scan per partition.
   */
  private static final byte[] HAS_SCHEDULES_FIELD = Keys.bytes("schedules");
  /** The most schedules one page of a listing holds. */
  static final int MAX_PAGE = 1000;
  private static final ScanArgs STATES = ScanArgs.Builder.matches("s:*").limit(200);

  /** Tending tasks queued or running in this process, for {@link #awaitIdle}. */
  private static final java.util.concurrent.atomic.AtomicInteger BUSY = new java.util.concurrent.atomic.AtomicInteger();

  private final QueueContext queue;
  private final AtomicLong lastSweep = new AtomicLong(Long.MIN_VALUE);

  ScheduleEngine(QueueContext queue) {
    this.queue = queue;
  }

  // ---- what the scripts keep ------------------------------------------------------------------

  /** A schedule's state as the scripts keep it (see lua/_schedules.lua for the fields). */
  record State(String[] f, boolean wellFormed) {
    static State parse(Object stored) {
      if (stored == null) {
        return null;
      }
      // why: a state of the wrong shape (another program's) reads as fields padded with blanks, so
      // storing the schedule again repairs it instead of failing on it
      String[] f = (QueueContext.text(stored) + "|").split("\\|", -1);
      String[] fields = new String[STATE_FIELDS];
      for (int i = 0; i < STATE_FIELDS; i++) {
        fields[i] = i < f.length - 1 ? f[i] : "";
      }
      return new State(fields, f.length - 1 == STATE_FIELDS);
    }

    long version() {
      return number(f[0], 0);
    }

    String pending() {
      return f[1];
    }

    long pendingDue() {
      return f[1].isEmpty() ? -1 : number(f[2], -1);
    }

    boolean hasNext() {
      return !f[3].isEmpty();
    }

    String previous() {
      return f[5];
    }

    long previousDue() {
      return number(f[6], -1);
    }

    int missedRun() {
      return (int) number(f[7], 0);
    }

    long fired() {
      return number(f[12], 0);
    }

    long skipped() {
      return number(f[13], 0);
    }

    long anchor() {
      return number(f[14], 0);
    }

    boolean paused() {
      return "1".equals(f[15]);
    }

    /** A field as delayq writes it, or {@code otherwise} for text another program left there. */
    private static long number(String field, long otherwise) {
      try {
        return field.isEmpty() ? otherwise : Long.parseLong(field);
      } catch (NumberFormatException e) {
        return otherwise;
      }
    }

    /** What the scripts compare: version and pending id, or nothing for a state they cannot read. */
    String token() {
      return wellFormed ? f[0] + ":" + f[1] : "";
    }
  }

  /** One read: the server's time, the definition and the state (either may be missing). */
  record Stored(long nowMillis, Schedule schedule, State state) {}

  int partitionOf(String name) {
    return Ids.partitionOf(name, queue.partitionCount());
  }

  private byte[] key(int p) {
    return Keys.schedules(queue.name, p);
  }

  /**
   * The job id of a schedule's occurrence: {@code <name>@<due instant>}, with {@code ~<n>} (the
   * smallest n that does it) appended where that id would hash to another partition than the
   * schedule's. Every process computes the same id, so the queue's duplicate rules see one job.
   */
  String occurrenceId(String name, long dueMillis) {
    String base = name + "@" + Instant.ofEpochMilli(dueMillis);
    int partitions = queue.partitionCount();
    int home = partitionOf(name);
    if (Ids.partitionOf(base, partitions) == home) {
      return base;
    }
    for (int n = 1; ; n++) {
      String salted = base + "~" + n;
      if (Ids.partitionOf(salted, partitions) == home) {
        return salted;
      }
    }
  }

  /** {@link #occurrenceId} as a script argument, or the empty one for "no occurrence" (-1). */
  private byte[] occurrenceIdOrNone(String name, long dueMillis) {
    return Keys.bytes(dueMillis < 0 ? "" : occurrenceId(name, dueMillis));
  }

  /** The job record of an occurrence created now: the schedule's payload and attempts, never KEEP. */
  private static byte[] occurrenceRecord(Schedule schedule, long nowMillis) {
    return new JobRecord(schedule.maxAttempts(), nowMillis, false, schedule.payload(), schedule.payloadIsJson())
        .encode();
  }

  private Stored read(String name) {
    int p = partitionOf(name);
    List<Object> r = queue.await(
        queue.<List<Object>>runWithKey(queue.client.scripts(), Script.SCHEDULE_READ, p, key(p), Keys.bytes(name)),
        null);
    long now = (Long) r.get(0) / 1000;
    Schedule schedule = r.get(1) == null ? null : ScheduleCodec.decode(name, QueueContext.text(r.get(1)));
    return new Stored(now, schedule, State.parse(r.get(2)));
  }

  // ---- the public calls ---------------------------------------------------------------------

  /** What a store does to the definition it reads. */
  private enum Change {
    SET,
    PAUSE,
    RESUME
  }

  @Override
  public ScheduleInfo set(Schedule schedule) {
    java.util.Objects.requireNonNull(schedule, "schedule");
    queue.checkOpen("schedules().set");
    Rules.checkPayloadSize(schedule.payload().length, queue.client.settings().maxPayloadBytes());
    return store(schedule.name(), schedule, Change.SET);
  }

  /**
   * Stores a definition and its new pending occurrence, computed from the state read in the same
   * step as the definition; a write that finds the state changed (a racing update or claim) reads
   * again. Pause and resume derive their definition from that read too, so they never write back a
   * definition another process has replaced meanwhile.
   */
  private ScheduleInfo store(String name, Schedule given, Change change) {
    int p = partitionOf(name);
    if (change == Change.SET) {
      queue.await(queue.client.async()
          .hset(Keys.bytes(Keys.settings(queue.name)), HAS_SCHEDULES_FIELD, Keys.bytes("1")).toCompletableFuture(), null);
    }
    long occupiedUntil = Long.MIN_VALUE;
    long deadline = System.nanoTime() + queue.client.settings().commandTimeout().toNanos();
    for (int race = 0; ; race++) {
      Stored stored = read(name);
      Schedule before = stored.schedule();
      State old = before == null ? null : stored.state();
      Schedule schedule = given;
      if (change != Change.SET) {
        if (before == null || old == null) {
          throw new ScheduleNotFoundException(queue.name, name);
        }
        boolean pause = change == Change.PAUSE;
        if (before.paused() == pause && old.paused() == pause) {
          return info(before, old);
        }
        schedule = before.withPaused(pause);
      }
      long now = stored.nowMillis();
      Recurrence.checkFires(schedule, now);
      boolean sameTiming = old != null && !old.paused() && sameTiming(before, schedule);
      long anchor = anchorFor(schedule, stored, now, change == Change.RESUME);
      Recurrence recurrence = Recurrence.of(schedule, anchor);
      long first = -1;
      if (!schedule.paused()) {
        if (sameTiming && !old.pending().isEmpty()) {
          // why: the same timing keeps the pending occurrence, late or not: an application that stores
          // its schedules at startup, after a downtime, must see the misfire policy applied to what it
          // missed, not skipped silently by a recomputation from now
          first = old.pendingDue();
        } else {
          long from;
          if (sameTiming) {
            from = old.previousDue() >= 0 ? old.previousDue() : now;
          } else if (old == null || old.paused() || change == Change.RESUME) {
            // why: strictly after now, and after the last occurrence handed out: a schedule stored or
            // resumed in the millisecond of a fire does not get that fire again
            from = Math.max(now, old == null ? -1 : old.previousDue());
          } else {
            // why: a new timing keeps the schedule's place: an occurrence due but not yet handed out
            // (an update at 09:00:00.2 of a schedule due at 09:00) is still owed; one handed out is not
            from = Math.max(now - schedule.misfire().grace().toMillis() - 1, old.previousDue());
          }
          first = recurrence.nextAfter(Math.max(from, occupiedUntil));
        }
      }
      long following = first < 0 ? -1 : recurrence.nextAfter(first);
      String pendingId = first < 0 ? "" : sameTiming && first == old.pendingDue() ? old.pending() : occurrenceId(name, first);
      byte[] record = occurrenceRecord(schedule, now);
      Misfire misfire = schedule.misfire();
      List<Object> r = queue.await(
          queue.<List<Object>>runWithKey(
              queue.client.scripts(),
              Script.SCHEDULE_SET,
              p,
              key(p),
              Keys.bytes(name),
              Keys.bytes(old == null ? "" : old.token()),
              Keys.bytes(ScheduleCodec.encode(schedule)),
              Keys.bytes(pendingId),
              QueueContext.number(Math.max(first, 0)),
              record,
              occurrenceIdOrNone(name, following),
              QueueContext.number(Math.max(following, 0)),
              QueueContext.number(misfire.grace().toMillis()),
              Keys.bytes(policyCode(misfire.policy())),
              QueueContext.number(misfire.maxRuns()),
              Keys.bytes(schedule.overlap() == io.delayq.Overlap.SKIP ? "s" : "a"),
              QueueContext.number(anchor),
              Keys.bytes(schedule.paused() ? "1" : "0")),
          null);
      long outcome = (Long) r.get(0);
      if (outcome == 1L) {
        // why: what this call wrote, not a second read that a racing update or remove may have changed
        return new ScheduleInfo(
            schedule,
            first < 0 ? null : Instant.ofEpochMilli(first),
            first < 0 ? null : pendingId,
            old == null || old.previousDue() < 0 ? null : Instant.ofEpochMilli(old.previousDue()),
            old == null || old.previous().isEmpty() ? null : old.previous(),
            old == null ? 0 : old.fired(),
            old == null ? 0 : old.skipped(),
            (Long) r.get(1));
      }
      if (outcome == 2L) {
        // why: that occurrence's job exists and is not waiting (held, retried after its lease, dead):
        // it is not created twice, and the schedule goes on after it
        occupiedUntil = first;
      } else if (!backOff(race, deadline)) {
        throw new io.delayq.QueueBusyException(queue.name, 0, 0,
            "schedule '" + name + "' of queue '" + queue.name + "' changed under " + (race + 1)
                + " attempts in a row to store it, for longer than the command timeout; something updates it"
                + " in a tight loop. Try again");
      }
    }
  }

  /**
   * After a lost race: waits a random moment that grows with the losses, so that racing writers
   * spread out instead of colliding again; false once past the deadline.
   */
  private static boolean backOff(int race, long deadlineNanos) {
    if (System.nanoTime() > deadlineNanos) {
      return false;
    }
    long maxMicros = Math.min(20_000, 50L << Math.min(race, 9));
    java.util.concurrent.locks.LockSupport.parkNanos(
        java.util.concurrent.ThreadLocalRandom.current().nextLong(1, maxMicros + 1) * 1000);
    return true;
  }

  /** Whether two definitions have the same occurrences. */
  private static boolean sameTiming(Schedule a, Schedule b) {
    return a != null
        && java.util.Objects.equals(a.cron(), b.cron())
        && java.util.Objects.equals(a.every(), b.every())
        && (a.cron() == null || a.zone().equals(b.zone()))
        && java.util.Objects.equals(a.startAt(), b.startAt())
        && java.util.Objects.equals(a.endAt(), b.endAt());
  }

  private static long anchorFor(Schedule schedule, Stored stored, long now, boolean fromNow) {
    if (schedule.every() == null) {
      return 0;
    }
    if (schedule.startAt() != null) {
      return schedule.startAt().toEpochMilli();
    }
    State old = stored.state();
    Schedule before = stored.schedule();
    boolean sameInterval = before != null && schedule.every().equals(before.every());
    if (old != null && sameInterval && !fromNow && !old.paused() && old.anchor() > 0) {
      return old.anchor();
    }
    return now + schedule.every().toMillis();
  }

  private static String policyCode(Misfire.Policy policy) {
    return switch (policy) {
      case SKIP -> "s";
      case RUN_ONCE -> "o";
      case RUN_UP_TO -> "n";
    };
  }

  @Override
  public Optional<ScheduleInfo> get(String name) {
    Schedule.checkName(name);
    queue.checkOpen("schedules().get");
    Stored stored = read(name);
    if (stored.schedule() == null || stored.state() == null) {
      return Optional.empty();
    }
    return Optional.of(info(stored.schedule(), stored.state()));
  }

  private static ScheduleInfo info(Schedule schedule, State s) {
    long prevDue = s.previousDue();
    return new ScheduleInfo(
        schedule,
        s.pendingDue() < 0 ? null : Instant.ofEpochMilli(s.pendingDue()),
        s.pending().isEmpty() ? null : s.pending(),
        prevDue < 0 ? null : Instant.ofEpochMilli(prevDue),
        s.previous().isEmpty() ? null : s.previous(),
        s.fired(),
        s.skipped(),
        s.version());
  }

  @Override
  public List<ScheduleInfo> list() {
    queue.checkOpen("schedules().list");
    List<ScheduleInfo> out = new ArrayList<>();
    for (String name : names()) {
      get(name).ifPresent(out::add);
    }
    return out;
  }

  @Override
  public io.delayq.Page<ScheduleInfo> list(String cursor, int limit) {
    if (limit < 1 || limit > MAX_PAGE) {
      throw new io.delayq.InvalidRequestException("limit", "must be between 1 and " + MAX_PAGE + "; got " + limit);
    }
    if (cursor != null) {
      Schedule.checkName(cursor);
    }
    queue.checkOpen("schedules().list");
    List<String> names = names();
    int from = cursor == null ? 0 : -java.util.Collections.binarySearch(names, cursor + "\0") - 1;
    List<ScheduleInfo> out = new ArrayList<>();
    int i = from;
    for (; i < names.size() && out.size() < limit; i++) {
      get(names.get(i)).ifPresent(out::add);
    }
    Optional<String> next = i < names.size() && !out.isEmpty() ? Optional.of(out.get(out.size() - 1).name()) : Optional.empty();
    return new io.delayq.Page<>(out, next);
  }

  /** Every schedule's name, sorted; read from the states, which are small, not the definitions. */
  private List<String> names() {
    var redis = queue.client.async();
    List<String> names = new ArrayList<>();
    for (int p = 0; p < queue.partitionCount(); p++) {
      ScanCursor cursor = ScanCursor.INITIAL;
      do {
        MapScanCursor<byte[], byte[]> page = queue.await(redis.hscan(key(p), cursor, STATES).toCompletableFuture(), null);
        for (byte[] field : page.getMap().keySet()) {
          names.add(new String(field, StandardCharsets.UTF_8).substring(2));
        }
        cursor = page;
      } while (!cursor.isFinished());
    }
    names.sort(Comparator.naturalOrder());
    return names;
  }

  @Override
  public boolean remove(String name) {
    Schedule.checkName(name);
    queue.checkOpen("schedules().remove");
    int p = partitionOf(name);
    Long removed = queue.await(
        queue.<Long>runWithKey(queue.client.scripts(), Script.SCHEDULE_REMOVE, p, key(p), Keys.bytes(name)), null);
    return removed == 1L;
  }

  @Override
  public ScheduleInfo pause(String name) {
    Schedule.checkName(name);
    queue.checkOpen("schedules().pause");
    return store(name, null, Change.PAUSE);
  }

  @Override
  public ScheduleInfo resume(String name) {
    Schedule.checkName(name);
    queue.checkOpen("schedules().resume");
    return store(name, null, Change.RESUME);
  }

  @Override
  public ScheduledJob runNow(String name) {
    Schedule.checkName(name);
    queue.checkOpen("schedules().runNow");
    Schedule current = read(name).schedule();
    if (current == null) {
      throw new ScheduleNotFoundException(queue.name, name);
    }
    JobRequest request = (current.payloadIsJson()
            ? JobRequest.ofJson(new String(current.payload(), StandardCharsets.UTF_8))
            : JobRequest.of(current.payload()))
        .withId(name + "@run-now:" + Ids.generate())
        .withMaxAttempts(current.maxAttempts())
        .withOnDuplicate(DuplicatePolicy.KEEP);
    return new Producing(queue).scheduleAll(List.of(request)).get(0);
  }

  // ---- tending ------------------------------------------------------------------------------

  /** Tends the named schedules of partition {@code p} off the caller's thread (a claim's answer). */
  void tendSoon(List<String> names) {
    for (String name : names) {
      submit(() -> tendQuietly(name, null));
    }
  }

  // why: tending blocks on Redis and is started from claim answers, which arrive on Lettuce's event
  // loop; it runs on the client's tender threads. Never throws: a claim's answer must reach its caller
  private void submit(Runnable task) {
    BUSY.incrementAndGet();
    try {
      queue.client.scheduleTender().execute(() -> {
        try {
          task.run();
        } finally {
          BUSY.decrementAndGet();
        }
      });
    } catch (RuntimeException e) {
      BUSY.decrementAndGet();
      log.debug("schedules of queue '{}' not tended now (the client is closing): {}", queue.name, e.toString());
    }
  }

  static boolean awaitIdle(java.time.Duration timeout) throws InterruptedException {
    long end = System.nanoTime() + timeout.toNanos();
    while (BUSY.get() > 0) {
      if (System.nanoTime() > end) {
        return false;
      }
      Thread.sleep(1);
    }
    return true;
  }

  /**
   * At most every few seconds per queue, looks over the schedules of {@code partitions} for a
   * sequence nobody tended (its tender died between a claim and the tending), off the caller's
   * thread.
   */
  void sweepSoon(int[] partitions, long nowNanos) {
    long last = lastSweep.get();
    if (last != Long.MIN_VALUE && nowNanos - last < SWEEP_EVERY_NANOS) {
      return;
    }
    if (!lastSweep.compareAndSet(last, nowNanos)) {
      return;
    }
    int[] copy = partitions.clone();
    submit(() -> {
      try {
        byte[] has = queue.await(queue.client.async()
            .hget(Keys.bytes(Keys.settings(queue.name)), HAS_SCHEDULES_FIELD).toCompletableFuture(), null);
        if (has == null) {
          return;
        }
      } catch (RuntimeException e) {
        log.debug("could not read whether queue '{}' has schedules: {}", queue.name, e.toString());
        return;
      }
      for (int p : copy) {
        try {
          sweep(p);
        } catch (RuntimeException e) {
          log.debug("could not look over the schedules of queue '{}' partition {}: {}", queue.name, p, e.toString());
        }
      }
    });
  }

  private void sweep(int p) {
    var redis = queue.client.async();
    byte[] scheduled = queue.partition(p).scheduled();
    ScanCursor cursor = ScanCursor.INITIAL;
    do {
      MapScanCursor<byte[], byte[]> page = queue.await(redis.hscan(key(p), cursor, STATES).toCompletableFuture(), null);
      List<String> pendingNames = new ArrayList<>();
      List<String> pendingIds = new ArrayList<>();
      List<java.util.concurrent.CompletableFuture<Double>> pendingScores = new ArrayList<>();
      for (var e : page.getMap().entrySet()) {
        State s = State.parse(e.getValue());
        String name = new String(e.getKey(), StandardCharsets.UTF_8).substring(2);
        if (s.paused()) {
          continue;
        }
        if (s.pending().isEmpty() || !s.hasNext()) {
          tendQuietly(name, null);
        } else {
          pendingNames.add(name);
          pendingIds.add(s.pending());
          pendingScores.add(redis.zscore(scheduled, Keys.bytes(s.pending())).toCompletableFuture());
        }
      }
      for (int i = 0; i < pendingNames.size(); i++) {
        // why: a pending occurrence whose job is gone (cancelled by id, or claimed by a delayq older
        // than schedules, which does not advance them) would stop the schedule for good
        if (queue.await(pendingScores.get(i), null) == null) {
          tendQuietly(pendingNames.get(i), pendingIds.get(i));
        }
      }
      cursor = page;
    } while (!cursor.isFinished());
  }

  private void tendQuietly(String name, String lostPending) {
    try {
      tend(name, lostPending);
    } catch (RuntimeException e) {
      // why: the sweep tries again within seconds, and a claim of the pending occurrence re-syncs
      log.warn("could not compute the next occurrence of schedule '{}' of queue '{}': {}", name, queue.name,
          e.toString());
    }
  }

  /**
   * Moves a schedule's sequence on: names the occurrence after the pending one, or re-syncs a
   * sequence that fell behind or stopped. {@code lostPending}: the id of a pending occurrence the
   * sweep found gone (its job cancelled by id, say), after which the sequence goes on; or null.
   * Returns whether it wrote anything.
   */
  boolean tend(String name, String lostPending) {
    int p = partitionOf(name);
    for (int race = 0; race < MAX_RACES; race++) {
      Stored stored = read(name);
      Schedule schedule = stored.schedule();
      State s = stored.state();
      if (schedule == null || s == null || s.paused()) {
        return false;
      }
      long now = stored.nowMillis();
      Recurrence recurrence = Recurrence.of(schedule, s.anchor());
      long grace = schedule.misfire().grace().toMillis();
      long candidate;
      if (!s.pending().isEmpty() && s.pending().equals(lostPending)) {
        candidate = recurrence.nextAfter(s.pendingDue());
      } else if (!s.pending().isEmpty()) {
        candidate = s.pendingDue();
        if (!isMissed(recurrence, candidate, now, grace) || wouldRun(schedule, s)) {
          if (s.hasNext()) {
            return false;
          }
          long following = recurrence.nextAfter(candidate);
          if (following < 0) {
            return false;
          }
          if (tendScript(p, name, s, "n", Keys.bytes(occurrenceId(name, following)), QueueContext.number(following)) == 1L) {
            return true;
          }
          continue;
        }
      } else {
        candidate = recurrence.nextAfter(s.previousDue() >= 0 ? s.previousDue() : now - 1);
        if (candidate < 0) {
          return false;
        }
      }
      // The candidate is missed and the policy does not run it, or the sequence stopped: put the
      // first occurrence that is not missed (or the candidate, if it may still run) in place.
      long target = candidate;
      long passed = 0;
      if (candidate >= 0 && isMissed(recurrence, candidate, now, grace) && !wouldRun(schedule, s)) {
        target = recurrence.nextAfter(now - grace - 1);
        for (int walked = 0; target >= 0 && walked < MAX_WALK && isMissed(recurrence, target, now, grace); walked++) {
          target = recurrence.nextAfter(target);
        }
        passed = recurrence.countBetween(candidate, target, MAX_COUNTED);
      }
      long following = target < 0 ? -1 : recurrence.nextAfter(target);
      byte[] record = occurrenceRecord(schedule, now);
      long applied = tendScript(p, name, s, "j",
          occurrenceIdOrNone(name, target),
          QueueContext.number(Math.max(target, 0)),
          record,
          occurrenceIdOrNone(name, following),
          QueueContext.number(Math.max(following, 0)),
          QueueContext.number(passed));
      if (applied == 1L) {
        return true;
      }
      backOff(race, Long.MAX_VALUE);
    }
    return false;
  }

  /** Late by more than the grace, or overtaken: the occurrence after it is due too. */
  private static boolean isMissed(Recurrence recurrence, long due, long now, long grace) {
    if (now - due > grace) {
      return true;
    }
    long after = recurrence.nextAfter(due);
    return after >= 0 && after <= now;
  }

  /** Whether the claim would still run a missed occurrence: the policy allows more of this run of misses. */
  private static boolean wouldRun(Schedule schedule, State s) {
    return schedule.misfire().policy() != Misfire.Policy.SKIP && s.missedRun() < schedule.misfire().maxRuns();
  }

  private long tendScript(int p, String name, State s, String mode, byte[]... args) {
    byte[][] own = new byte[3 + args.length][];
    own[0] = Keys.bytes(name);
    own[1] = Keys.bytes(s.token());
    own[2] = Keys.bytes(mode);
    System.arraycopy(args, 0, own, 3, args.length);
    return queue.await(queue.<Long>runWithKey(queue.client.scripts(), Script.SCHEDULE_TEND, p, key(p), own), null);
  }
}
