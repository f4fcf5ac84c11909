package io.delayq.internal;

import io.delayq.DuplicatePolicy;
import io.delayq.JobRequest;
import io.delayq.Misfire;
import io.delayq.Schedule;
import io.delayq.ScheduleInfo;
import io.delayq.ScheduleNotFoundException;
import io.delayq.ScheduledJob;
import io.delayq.Schedules;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.MapScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
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
  /** Attempts of a write that lost a race before the call gives up: each loser rereads and recomputes. */
  private static final int MAX_RACES = 50;
  /** Occurrences walked past to re-sync a sequence after a downtime; beyond this it jumps to now. */
  private static final int MAX_WALK = 100_000;
  private static final int STATE_FIELDS = 16;
  private static final ScanArgs DEFINITIONS = ScanArgs.Builder.matches("d:*").limit(200);
  private static final ScanArgs STATES = ScanArgs.Builder.matches("s:*").limit(200);

  // why: tending blocks on Redis and is started from claim answers, which arrive on Lettuce's event
  // loop; two daemon threads serve every queue of the process
  private static final ExecutorService TENDER =
      Executors.newFixedThreadPool(2, r -> {
        Thread t = new Thread(r, "delayq-schedules");
        t.setDaemon(true);
        return t;
      });

  /** Tending tasks queued or running in this process, for {@link #awaitIdle}. */
  private static final java.util.concurrent.atomic.AtomicInteger BUSY = new java.util.concurrent.atomic.AtomicInteger();

  private final QueueContext queue;
  private final AtomicLong lastSweep = new AtomicLong(Long.MIN_VALUE);

  ScheduleEngine(QueueContext queue) {
    this.queue = queue;
  }

  // ---- what the scripts keep ------------------------------------------------------------------

  /** A schedule's state as the scripts keep it (see lua/_schedules.lua for the fields). */
  record State(String[] f) {
    static State parse(Object stored) {
      if (stored == null) {
        return null;
      }
      String[] f = (QueueContext.text(stored) + "|").split("\\|", -1);
      if (f.length - 1 != STATE_FIELDS) {
        throw new IllegalStateException("a schedule's state has " + (f.length - 1) + " fields, not " + STATE_FIELDS);
      }
      return new State(java.util.Arrays.copyOf(f, STATE_FIELDS));
    }

    long version() {
      return Long.parseLong(f[0]);
    }

    String pending() {
      return f[1];
    }

    long pendingDue() {
      return f[2].isEmpty() ? -1 : Long.parseLong(f[2]);
    }

    boolean hasNext() {
      return !f[3].isEmpty();
    }

    String previous() {
      return f[5];
    }

    long previousDue() {
      return f[6].isEmpty() ? -1 : Long.parseLong(f[6]);
    }

    int missedRun() {
      return Integer.parseInt(f[7]);
    }

    long fired() {
      return Long.parseLong(f[12]);
    }

    long skipped() {
      return Long.parseLong(f[13]);
    }

    long anchor() {
      return Long.parseLong(f[14]);
    }

    boolean paused() {
      return "1".equals(f[15]);
    }

    String token() {
      return f[0] + ":" + f[1];
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

  @Override
  public ScheduleInfo set(Schedule schedule) {
    java.util.Objects.requireNonNull(schedule, "schedule");
    queue.checkOpen("schedules().set");
    Rules.checkPayloadSize(schedule.payload().length, queue.client.settings().maxPayloadBytes());
    return store(schedule, false);
  }

  private ScheduleInfo store(Schedule schedule, boolean fromNow) {
    String name = schedule.name();
    int p = partitionOf(name);
    for (int race = 0; race < MAX_RACES; race++) {
      Stored stored = read(name);
      State old = stored.state();
      long now = stored.nowMillis();
      long anchor = anchorFor(schedule, stored, now, fromNow);
      Recurrence recurrence = Recurrence.of(schedule, anchor);
      long first = -1;
      if (!schedule.paused()) {
        long from;
        if (old == null || fromNow || old.paused()) {
          from = now - 1;
        } else {
          // why: an update keeps the schedule's place in time. An occurrence that is due but not yet
          // handed out (an update at 09:00:00.2 of a schedule due at 09:00) is still owed; one
          // already handed out is not owed again
          from = Math.max(now - schedule.misfire().grace().toMillis() - 1, old.previousDue());
        }
        first = recurrence.nextAfter(from);
      }
      long following = first < 0 ? -1 : recurrence.nextAfter(first);
      String pendingId = first < 0 ? "" : occurrenceId(name, first);
      byte[] record = new JobRecord(schedule.maxAttempts(), now, false, schedule.payload(), schedule.payloadIsJson())
          .encode();
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
              Keys.bytes(following < 0 ? "" : occurrenceId(name, following)),
              QueueContext.number(Math.max(following, 0)),
              QueueContext.number(misfire.grace().toMillis()),
              Keys.bytes(policyCode(misfire.policy())),
              QueueContext.number(misfire.maxRuns()),
              Keys.bytes(schedule.overlap() == io.delayq.Overlap.SKIP ? "s" : "a"),
              QueueContext.number(anchor),
              Keys.bytes(schedule.paused() ? "1" : "0")),
          null);
      if ((Long) r.get(0) == 1L) {
        return get(name).orElseThrow(() -> new ScheduleNotFoundException(queue.name, name));
      }
    }
    throw new io.delayq.QueueBusyException(queue.name, 0, 0,
        "schedule '" + name + "' of queue '" + queue.name + "' changed under " + MAX_RACES
            + " attempts in a row to store it; something updates it in a tight loop. Try again");
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
    var redis = queue.client.async();
    List<String> names = new ArrayList<>();
    for (int p = 0; p < queue.partitionCount(); p++) {
      ScanCursor cursor = ScanCursor.INITIAL;
      do {
        MapScanCursor<byte[], byte[]> page =
            queue.await(redis.hscan(key(p), cursor, DEFINITIONS).toCompletableFuture(), null);
        for (byte[] field : page.getMap().keySet()) {
          names.add(new String(field, StandardCharsets.UTF_8).substring(2));
        }
        cursor = page;
      } while (!cursor.isFinished());
    }
    names.sort(Comparator.naturalOrder());
    List<ScheduleInfo> out = new ArrayList<>(names.size());
    for (String name : names) {
      get(name).ifPresent(out::add);
    }
    return out;
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
    Schedule current = read(name).schedule();
    if (current == null) {
      throw new ScheduleNotFoundException(queue.name, name);
    }
    return current.paused() ? get(name).orElseThrow() : store(current.withPaused(true), false);
  }

  @Override
  public ScheduleInfo resume(String name) {
    Schedule.checkName(name);
    queue.checkOpen("schedules().resume");
    Schedule current = read(name).schedule();
    if (current == null) {
      throw new ScheduleNotFoundException(queue.name, name);
    }
    return current.paused() ? store(current.withPaused(false), true) : get(name).orElseThrow();
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
      submit(() -> tendQuietly(name));
    }
  }

  private static void submit(Runnable task) {
    BUSY.incrementAndGet();
    try {
      TENDER.execute(() -> {
        try {
          task.run();
        } finally {
          BUSY.decrementAndGet();
        }
      });
    } catch (RuntimeException e) {
      BUSY.decrementAndGet();
      throw e;
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
    ScanCursor cursor = ScanCursor.INITIAL;
    do {
      MapScanCursor<byte[], byte[]> page = queue.await(redis.hscan(key(p), cursor, STATES).toCompletableFuture(), null);
      for (var e : page.getMap().entrySet()) {
        State s = State.parse(e.getValue());
        if (!s.paused() && (s.pending().isEmpty() || !s.hasNext())) {
          tendQuietly(new String(e.getKey(), StandardCharsets.UTF_8).substring(2));
        }
      }
      cursor = page;
    } while (!cursor.isFinished());
  }

  private void tendQuietly(String name) {
    try {
      tend(name);
    } catch (RuntimeException e) {
      // why: the sweep tries again within seconds, and a claim of the pending occurrence re-syncs
      log.warn("could not compute the next occurrence of schedule '{}' of queue '{}': {}", name, queue.name,
          e.toString());
    }
  }

  /**
   * Moves a schedule's sequence on: names the occurrence after the pending one, or re-syncs a
   * sequence that fell behind or stopped. Returns whether it wrote anything.
   */
  boolean tend(String name) {
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
      if (!s.pending().isEmpty()) {
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
      if (isMissed(recurrence, candidate, now, grace) && !wouldRun(schedule, s)) {
        target = recurrence.nextAfter(now - grace - 1);
        for (int walked = 0; target >= 0 && walked < MAX_WALK && isMissed(recurrence, target, now, grace); walked++) {
          target = recurrence.nextAfter(target);
        }
        passed = countBetween(recurrence, candidate, target);
      }
      long following = target < 0 ? -1 : recurrence.nextAfter(target);
      byte[] record = new JobRecord(schedule.maxAttempts(), now, false, schedule.payload(), schedule.payloadIsJson())
          .encode();
      long applied = tendScript(p, name, s, "j",
          Keys.bytes(target < 0 ? "" : occurrenceId(name, target)),
          QueueContext.number(Math.max(target, 0)),
          record,
          Keys.bytes(following < 0 ? "" : occurrenceId(name, following)),
          QueueContext.number(Math.max(following, 0)),
          QueueContext.number(passed));
      if (applied == 1L) {
        return true;
      }
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

  /** Occurrences from {@code from} (inclusive) to {@code to} (exclusive, -1 for none), counted up to a bound. */
  private static long countBetween(Recurrence recurrence, long from, long to) {
    long n = 0;
    long at = from;
    while (at >= 0 && (to < 0 || at < to) && n < MAX_WALK) {
      n++;
      at = recurrence.nextAfter(at);
    }
    return n;
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
