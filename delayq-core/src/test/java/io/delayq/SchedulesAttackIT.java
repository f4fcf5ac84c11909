package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delayq.internal.Keys;
import io.delayq.internal.SimulatedTime;
import io.delayq.testing.TestRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Hostile and careless uses of recurring schedules, on a real Redis, with a simulated clock that
 * every script of the client reads (see SimulatedTime). Each test states the promise it checks;
 * a failing test is a finding.
 */
class SchedulesAttackIT {
  private static final Instant START = Instant.parse("2026-03-28T00:00:00Z");
  private static final Duration LEASE = Duration.ofMinutes(30);

  private final AtomicLong nowMicros = new AtomicLong(START.toEpochMilli() * 1000);
  private Delayq delayq;
  private RedisClient rawClient;
  private StatefulRedisConnection<String, String> raw;

  @BeforeEach
  void connect() {
    delayq = Delayq.connect(TestRedis.url());
    SimulatedTime.install(delayq, nowMicros::get);
    rawClient = RedisClient.create(TestRedis.url());
    raw = rawClient.connect();
  }

  @AfterEach
  void close() {
    delayq.close();
    raw.close();
    rawClient.shutdown();
  }

  private Instant now() {
    return Instant.ofEpochMilli(nowMicros.get() / 1000);
  }

  private void advanceTo(Instant at) {
    nowMicros.set(at.toEpochMilli() * 1000);
  }

  private void advance(Duration d) {
    nowMicros.addAndGet(d.toNanos() / 1000);
  }

  private static void awaitTending() throws InterruptedException {
    assertThat(SimulatedTime.awaitTending(Duration.ofSeconds(20))).as("tending finished").isTrue();
  }

  /** Claims and acks everything due, as a woken worker does, until a claim finds nothing. */
  private List<LeasedJob> drain(JobQueue queue) throws InterruptedException {
    return drain(queue, 50);
  }

  private List<LeasedJob> drain(JobQueue queue, int maxPasses) throws InterruptedException {
    awaitTending();
    List<LeasedJob> out = new ArrayList<>();
    for (int pass = 0; pass < maxPasses; pass++) {
      List<LeasedJob> jobs = queue.pull().claim(100, LEASE);
      awaitTending();
      for (LeasedJob job : jobs) {
        queue.pull().ack(job);
      }
      out.addAll(jobs);
      if (jobs.isEmpty()) {
        break;
      }
    }
    return out;
  }

  private String schedulesKey(JobQueue queue, int partition) {
    return new String(Keys.schedules(queue.name(), partition), StandardCharsets.UTF_8);
  }

  // ---- a user acting on an occurrence's job by id ------------------------------------------

  /** Promise: each occurrence has its own job; cancelling one occurrence must not end the schedule. */
  @Test
  void cancellingOneOccurrenceByIdDoesNotStopTheSchedule() throws Exception {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("att-cancel"), 1);
    queue.schedules().set(Schedule.every("tick", Duration.ofMinutes(1)).startingAt(START.plusSeconds(60)));
    awaitTending();
    String pending = queue.schedules().get("tick").orElseThrow().pendingJobId();
    assertThat(queue.cancel(pending)).isTrue();

    List<String> ran = new ArrayList<>();
    for (int minute = 1; minute <= 5; minute++) {
      advanceTo(START.plusSeconds(60L * minute));
      drain(queue).forEach(j -> ran.add(j.id()));
    }
    assertThat(ran).as("occurrences after the cancelled one (%s) still run", pending)
        .contains("tick@2026-03-28T00:02:00Z", "tick@2026-03-28T00:05:00Z");
  }

  /** Rescheduling an occurrence's job to later (a user postponing tonight's run) should run it then. */
  @Test
  void reschedulingAnOccurrenceLaterRunsItAtTheNewTime() throws Exception {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("att-resched"), 1);
    queue.schedules().set(Schedule.every("nightly", Duration.ofHours(24)).startingAt(START.plus(Duration.ofHours(1))));
    awaitTending();
    String pending = queue.schedules().get("nightly").orElseThrow().pendingJobId();
    Instant later = START.plus(Duration.ofHours(1)).plus(Duration.ofMinutes(10));
    queue.reschedule(pending, later);

    advanceTo(later);
    List<String> ran = drain(queue).stream().map(LeasedJob::id).toList();
    assertThat(ran).as("the postponed occurrence runs at its new time, not silently skipped as 'missed'")
        .containsExactly(pending);
  }

  // ---- queue deletion ---------------------------------------------------------------------

  /** Deleting a queue deletes "a queue and its jobs"; its schedules must not survive as zombies. */
  @Test
  void deletingTheQueueRemovesItsSchedules() throws Exception {
    String name = TestRedis.uniqueQueue("att-delete");
    JobQueue queue = delayq.queue(name, 2);
    queue.schedules().set(Schedule.every("tick", Duration.ofMinutes(1)));
    awaitTending();
    queue.admin().delete(true);

    List<String> left = TestRedis.keysMatching(raw, "{dq:" + name + ":*}:schedules");
    JobQueue again = delayq.queue(name, 2);
    Optional<ScheduleInfo> zombie = again.schedules().get("tick");
    SoftAssertions soft = new SoftAssertions();
    soft.assertThat(left).as("schedule keys left after delete").isEmpty();
    soft.assertThat(zombie).as("schedule visible on the re-created queue, pending %s which no longer exists",
        zombie.map(ScheduleInfo::pendingJobId).orElse(null)).isEmpty();
    // and the zombie never fires: its pending job is gone
    advance(Duration.ofMinutes(5));
    soft.assertThat(drain(again)).as("a zombie schedule either is gone, or fires; here").isEmpty();
    soft.assertAll();
  }

  // ---- another program writes into the schedules hash ------------------------------------

  private String[] corruptibleState(JobQueue queue) throws InterruptedException {
    queue.schedules().set(Schedule.every("tick", Duration.ofMinutes(1)).startingAt(START.plusSeconds(60)));
    awaitTending();
    String text = raw.sync().hget(schedulesKey(queue, 0), "s:tick");
    String[] f = (text + "|").split("\\|", -1);
    return Arrays.copyOf(f, 16);
  }

  /** A non-number where the next occurrence's due time belongs must not block claims of ordinary jobs. */
  @Test
  void aCorruptNextDueInTheSchedulesHashDoesNotBlockOrdinaryJobs() throws Exception {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("att-corrupt1"), 1);
    String[] f = corruptibleState(queue);
    f[4] = "not-a-number";
    raw.sync().hset(schedulesKey(queue, 0), "s:tick", String.join("|", f));
    queue.schedule(JobRequest.of("ordinary").withId("plain").withRunAt(START.plusSeconds(60)));

    advanceTo(START.plusSeconds(60));
    List<String> got = new ArrayList<>();
    List<Throwable> errors = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      try {
        queue.pull().claim(100, LEASE).forEach(j -> got.add(j.id()));
      } catch (RuntimeException e) {
        errors.add(e);
      }
    }
    assertThat(got).as("ordinary job claimed despite the corrupt schedule (claim errors: %s)", errors)
        .contains("plain");
  }

  /**
   * A next occurrence id without its due time: the claim script fails after it has removed the
   * due jobs from the schedule, so an ordinary job due in the same batch must not be lost.
   */
  @Test
  void aCorruptNextOccurrenceInTheSchedulesHashDoesNotLoseOrdinaryJobs() throws Exception {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("att-corrupt2"), 1);
    String[] f = corruptibleState(queue);
    f[3] = "tick@bogus";
    f[4] = "";
    raw.sync().hset(schedulesKey(queue, 0), "s:tick", String.join("|", f));
    queue.schedule(JobRequest.of("ordinary").withId("plain").withRunAt(START.plusSeconds(60)));

    advanceTo(START.plusSeconds(60));
    List<String> got = new ArrayList<>();
    List<Throwable> errors = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      try {
        queue.pull().claim(100, LEASE).forEach(j -> got.add(j.id()));
      } catch (RuntimeException e) {
        errors.add(e);
      }
    }
    assertThat(got).as("ordinary job handed out at last (claim errors: %s; job now: %s)", errors,
        queue.get("plain").map(JobInfo::state).orElse(null)).contains("plain");
  }

  // ---- racing updates ---------------------------------------------------------------------

  /**
   * Promise: "any number of processes may store, pause or advance a schedule at once". Many
   * threads store the same definition while the clock runs: each due instant fires exactly once,
   * none is lost, and no call gives up.
   */
  @Test
  void concurrentUpsertsOfOneScheduleFireEachDueInstantOnce() throws Exception {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("att-upsert"), 4);
    Schedule schedule = Schedule.every("hot", Duration.ofSeconds(10)).startingAt(START.plusSeconds(10))
        .withPayload("same");
    queue.schedules().set(schedule);
    int threads = 12;
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger busy = new AtomicInteger();
    AtomicInteger sets = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Future<?>> futures = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      futures.add(pool.submit(() -> {
        while (!stop.get()) {
          try {
            queue.schedules().set(schedule);
            sets.incrementAndGet();
          } catch (QueueBusyException e) {
            busy.incrementAndGet();
          }
        }
        return null;
      }));
    }
    Map<Instant, Integer> fires = new ConcurrentHashMap<>();
    try {
      for (int round = 0; round < 60; round++) {
        advance(Duration.ofSeconds(5));
        for (LeasedJob job : drain(queue)) {
          fires.merge(job.runAt(), 1, Integer::sum);
        }
      }
    } finally {
      stop.set(true);
      for (Future<?> f : futures) {
        f.get(30, TimeUnit.SECONDS);
      }
      pool.shutdownNow();
    }
    Instant end = now();
    SoftAssertions soft = new SoftAssertions();
    for (Instant due = START.plusSeconds(10); !due.isAfter(end); due = due.plusSeconds(10)) {
      soft.assertThat(fires.getOrDefault(due, 0)).as("fires at %s", due).isEqualTo(1);
    }
    soft.assertThat(busy.get()).as("set() calls that gave up with QueueBusyException (of %d that succeeded)",
        sets.get()).isZero();
    soft.assertAll();
  }

  /**
   * pause() and resume() read the definition, then store it with the pause flag: a set() that
   * lands in between must not be reverted (a lost update of the payload).
   */
  @Test
  void pauseAndResumeDoNotRevertAConcurrentSet() throws Exception {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("att-lostupdate"), 1);
    Schedule base = Schedule.every("toggled", Duration.ofMinutes(1));
    queue.schedules().set(base.withPayload("v0"));
    AtomicBoolean stop = new AtomicBoolean();
    ExecutorService pool = Executors.newSingleThreadExecutor();
    Future<?> toggler = pool.submit(() -> {
      while (!stop.get()) {
        queue.schedules().pause("toggled");
        queue.schedules().resume("toggled");
      }
      return null;
    });
    List<String> reverted = new ArrayList<>();
    try {
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
      for (int i = 1; System.nanoTime() < until && reverted.size() < 3; i++) {
        queue.schedules().set(base.withPayload("v" + i));
        // why: only this thread writes payloads, so once set(v_i) returned nothing may show an older one
        String seen = new String(queue.schedules().get("toggled").orElseThrow().schedule().payload(),
            StandardCharsets.UTF_8);
        if (!seen.equals("v" + i)) {
          reverted.add("set v" + i + ", then read " + seen);
        }
      }
    } finally {
      stop.set(true);
      toggler.get(30, TimeUnit.SECONDS);
      pool.shutdownNow();
    }
    assertThat(reverted).as("definitions reverted by a racing pause/resume").isEmpty();
  }

  /** "an update at 09:00:00.2 of a schedule due at 09:00 does not lose that run", nor doubles it. */
  @Test
  void anUpdateAtTheDueInstantNeitherLosesNorDoublesTheRun() throws Exception {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("att-update-at-due"), 1);
    Schedule s = Schedule.every("edge", Duration.ofMinutes(1)).startingAt(START.plusSeconds(60));
    queue.schedules().set(s.withPayload("v1"));
    awaitTending();
    advanceTo(START.plusSeconds(60));
    queue.schedules().set(s.withPayload("v2"));
    List<LeasedJob> first = drain(queue);
    assertThat(first).extracting(LeasedJob::payloadAsString).containsExactly("v2");
    queue.schedules().set(s.withPayload("v3"));
    assertThat(drain(queue)).as("the occurrence already handed out is not handed out again").isEmpty();
    advance(Duration.ofMillis(200));
    queue.schedules().set(s.withPayload("v4"));
    assertThat(drain(queue)).isEmpty();
    advanceTo(START.plusSeconds(120));
    assertThat(drain(queue)).extracting(LeasedJob::payloadAsString).containsExactly("v4");
  }

  /** A resume in the same millisecond as a fire must not hand that occurrence out a second time. */
  @Test
  void aResumeInTheMillisecondOfAFireDoesNotRunThatOccurrenceAgain() throws Exception {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("att-resume-edge"), 1);
    advanceTo(START.plusSeconds(1));
    queue.schedules().set(Schedule.cron("minutely", "* * * * *"));
    advanceTo(START.plusSeconds(60));
    List<String> ran = new ArrayList<>();
    drain(queue).forEach(j -> ran.add(j.id()));
    queue.schedules().pause("minutely");
    queue.schedules().resume("minutely");
    drain(queue).forEach(j -> ran.add(j.id()));
    assertThat(ran).as("occurrences handed out").doesNotHaveDuplicates().hasSize(1);
  }

  /** Same for a remove and re-create (a deploy that re-registers its schedules) at the due instant. */
  @Test
  void aRecreateInTheMillisecondOfAFireNeitherDoublesNorStallsTheSchedule() throws Exception {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("att-recreate-edge"), 1);
    Schedule s = Schedule.cron("minutely", "* * * * *");
    advanceTo(START.plusSeconds(1));
    queue.schedules().set(s);
    awaitTending();
    advanceTo(START.plusSeconds(60));
    List<LeasedJob> held = queue.pull().claim(10, LEASE);
    awaitTending();
    assertThat(held).hasSize(1);
    queue.schedules().remove("minutely");
    queue.schedules().set(s);
    queue.pull().ack(held.get(0));
    List<String> later = new ArrayList<>();
    for (int m = 2; m <= 4; m++) {
      advanceTo(START.plusSeconds(60L * m));
      drain(queue).forEach(j -> later.add(j.id()));
    }
    assertThat(later).as("the re-created schedule fires on at 00:02..00:04")
        .containsExactly("minutely@2026-03-28T00:02:00Z", "minutely@2026-03-28T00:03:00Z",
            "minutely@2026-03-28T00:04:00Z");
  }

  /** Remove while a worker holds an occurrence: it runs to its end, and nothing fires after. */
  @Test
  void removeDuringAFireLetsTheHeldRunFinishAndStopsTheSequence() throws Exception {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("att-remove"), 1);
    queue.schedules().set(Schedule.every("r", Duration.ofMinutes(1)).startingAt(START.plusSeconds(60)));
    awaitTending();
    advanceTo(START.plusSeconds(60));
    List<LeasedJob> held = queue.pull().claim(10, LEASE);
    awaitTending();
    assertThat(held).hasSize(1);
    assertThat(queue.schedules().remove("r")).isTrue();
    queue.pull().ack(held.get(0));
    advance(Duration.ofMinutes(5));
    assertThat(drain(queue)).isEmpty();
    assertThat(queue.schedules().get("r")).isEmpty();
    assertThat(raw.sync().hgetall(schedulesKey(queue, 0))).as("nothing left of the schedule").isEmpty();
  }

  /** Pause and resume racing claims: no occurrence is handed out twice, none while paused. */
  @Test
  void pauseAndResumeRacingClaimsNeverHandOutAnOccurrenceTwice() throws Exception {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("att-pause-race"), 1);
    queue.schedules().set(Schedule.every("p", Duration.ofSeconds(1)).startingAt(START.plusSeconds(1)));
    AtomicBoolean stop = new AtomicBoolean();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    CountDownLatch started = new CountDownLatch(2);
    List<Future<?>> togglers = new ArrayList<>();
    for (int t = 0; t < 2; t++) {
      togglers.add(pool.submit(() -> {
        started.countDown();
        while (!stop.get()) {
          queue.schedules().pause("p");
          queue.schedules().resume("p");
        }
        return null;
      }));
    }
    started.await();
    Map<String, Integer> handed = new ConcurrentHashMap<>();
    try {
      for (int round = 0; round < 200; round++) {
        advance(Duration.ofMillis(500));
        for (LeasedJob job : drain(queue)) {
          handed.merge(job.id(), 1, Integer::sum);
        }
      }
    } finally {
      stop.set(true);
      for (Future<?> f : togglers) {
        f.get(30, TimeUnit.SECONDS);
      }
      pool.shutdownNow();
    }
    assertThat(handed).isNotEmpty();
    assertThat(handed.values()).containsOnly(1);
  }

  // ---- misfire ----------------------------------------------------------------------------

  /**
   * The usual deployment: after a downtime the application starts again and stores its schedules
   * again (set() is an upsert) before its workers claim. "One that is already missed then follows
   * the misfire policy": RUN_ONCE must still run one missed occurrence.
   */
  @Test
  void reStoringAScheduleAfterADowntimeStillFollowsItsMisfirePolicy() throws Exception {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("att-restart"), 1);
    Schedule s = Schedule.every("catchup", Duration.ofMinutes(10)).startingAt(START.plus(Duration.ofMinutes(10)))
        .withMisfire(Misfire.runOnce());
    queue.schedules().set(s);
    advanceTo(START.plus(Duration.ofMinutes(10)));
    assertThat(drain(queue)).hasSize(1);
    long skippedBefore = queue.schedules().get("catchup").orElseThrow().skipped();

    advanceTo(START.plus(Duration.ofMinutes(10)).plus(Duration.ofHours(2)).plus(Duration.ofMinutes(5)));
    queue.schedules().set(s); // the restarted application re-registers its schedule
    List<LeasedJob> after = drain(queue);
    ScheduleInfo info = queue.schedules().get("catchup").orElseThrow();
    SoftAssertions soft = new SoftAssertions();
    soft.assertThat(after).as("one catch-up run of the 12 occurrences missed in the downtime")
        .extracting(LeasedJob::runAt).hasSize(1);
    soft.assertThat(info.skipped() - skippedBefore).as("missed occurrences counted as skipped").isEqualTo(11);
    soft.assertAll();
  }

  /** runUpTo(1000) after two days down, on a cron every second: bounded, quick, counted right. */
  @Test
  void runUpToAThousandAfterTwoDaysDownIsQuickAndCountsEveryOccurrence() throws Exception {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("att-upto"), 1);
    queue.schedules().set(Schedule.cron("secondly", "* * * * * *").withMisfire(Misfire.runUpTo(1000)));
    advance(Duration.ofSeconds(1));
    assertThat(drain(queue)).as("00:00:01: a schedule stored at 00:00:00 starts strictly after it").hasSize(1);
    advance(Duration.ofDays(2));
    long started = System.nanoTime();
    long slowest = 0;
    int ran = 0;
    for (int pass = 0; pass < 5000; pass++) {
      List<LeasedJob> jobs = queue.pull().claim(100, LEASE);
      long t = System.nanoTime();
      awaitTending();
      slowest = Math.max(slowest, System.nanoTime() - t);
      for (LeasedJob job : jobs) {
        queue.pull().ack(job);
      }
      ran += jobs.size();
      if (jobs.isEmpty()) {
        break;
      }
    }
    long tookMs = (System.nanoTime() - started) / 1_000_000;
    ScheduleInfo info = queue.schedules().get("secondly").orElseThrow();
    long occurrencesSoFar = 1 + Duration.ofDays(2).toSeconds(); // 00:00:01 .. now, inclusive
    SoftAssertions soft = new SoftAssertions();
    soft.assertThat(ran).as("catch-up runs (1000 missed + the one on time)").isEqualTo(1001);
    soft.assertThat(info.fired() + info.skipped()).as("fired %d + skipped %d = every occurrence so far",
        info.fired(), info.skipped()).isEqualTo(occurrencesSoFar);
    soft.assertThat(TimeUnit.NANOSECONDS.toMillis(slowest)).as("slowest tending of one claim, ms").isLessThan(250);
    soft.assertThat(tookMs).as("whole catch-up, ms").isLessThan(15_000);
    soft.assertAll();
  }

  /**
   * A grace below the milliseconds by which workers start jobs late would count on-time runs as
   * missed (with grace 0, a 1 s interval on real workers skipped about half its runs): refused.
   */
  @Test
  void aGraceBelowOneSecondIsRefusedWithTheReason() {
    assertThatThrownBy(() -> Misfire.skip().withGrace(Duration.ZERO)).isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("at least 1 second").hasMessageContaining("on-time runs as missed");
    assertThat(Misfire.skip().withGrace(Duration.ofSeconds(1)).grace()).isEqualTo(Duration.ofSeconds(1));
  }

  // ---- overlap ----------------------------------------------------------------------------

  /** Overlap SKIP: a retrying predecessor skips the next; once it is dead or done, the next runs. */
  @Test
  void overlapSkipWaitsForARetryingPredecessorButNotForADeadOne() throws Exception {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("att-overlap"), 1);
    queue.schedules().set(Schedule.every("o", Duration.ofMinutes(1)).startingAt(START.plusSeconds(60))
        .withOverlap(Overlap.SKIP).withMaxAttempts(2)
        .withMisfire(Misfire.skip().withGrace(Duration.ofSeconds(30))));
    awaitTending();
    advanceTo(START.plusSeconds(60));
    List<LeasedJob> first = queue.pull().claim(10, LEASE);
    awaitTending();
    assertThat(first).hasSize(1);
    queue.pull().nack(first.get(0), Duration.ofSeconds(90), "boom"); // retries at 00:02:30

    advanceTo(START.plusSeconds(120));
    assertThat(drain(queue)).as("00:02 skipped: its predecessor waits for a retry").isEmpty();
    advanceTo(START.plusSeconds(150));
    List<LeasedJob> retry = queue.pull().claim(10, LEASE);
    awaitTending();
    assertThat(retry).extracting(LeasedJob::id).containsExactly(first.get(0).id());
    queue.pull().nack(retry.get(0), Duration.ofSeconds(1), "boom again"); // last attempt: dead
    assertThat(queue.admin().deadJobs(10)).extracting(JobInfo::id).contains(first.get(0).id());

    advanceTo(START.plusSeconds(180));
    assertThat(drain(queue)).as("00:03 runs: a dead predecessor holds nothing back")
        .extracting(LeasedJob::id).containsExactly("o@2026-03-28T00:03:00Z");
    assertThat(queue.schedules().get("o").orElseThrow().skipped()).isEqualTo(1);
  }

  // ---- odd definitions --------------------------------------------------------------------

  @Test
  void aLeapDayCronFindsItsRareOccurrences() throws Exception {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("att-leap"), 1);
    ScheduleInfo info = queue.schedules().set(Schedule.cron("leap", "0 12 29 2 *"));
    assertThat(info.nextRun()).isEqualTo(Instant.parse("2028-02-29T12:00:00Z"));
    assertThat(info.upcoming(3)).containsExactly(Instant.parse("2028-02-29T12:00:00Z"),
        Instant.parse("2032-02-29T12:00:00Z"), Instant.parse("2036-02-29T12:00:00Z"));
    ScheduleInfo yearly = queue.schedules().set(Schedule.cron("yearly", "@yearly"));
    assertThat(yearly.nextRun()).isEqualTo(Instant.parse("2027-01-01T00:00:00Z"));
    advanceTo(Instant.parse("2028-02-29T12:00:00Z"));
    assertThat(drain(queue)).extracting(LeasedJob::id).contains("leap@2028-02-29T12:00:00Z");
  }

  /** A cron that matches no date at all is refused when built, not stored as a schedule that never fires. */
  @Test
  void aCronThatNeverMatchesIsRefused() {
    assertThatThrownBy(() -> Schedule.cron("never", "0 0 30 2 *")).isInstanceOf(InvalidRequestException.class);
  }

  /** endAt already past: refused as "would never fire", like endAt before startAt is. */
  @Test
  void anEndInThePastIsRefused() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("att-end-past"), 1);
    assertThatThrownBy(() -> queue.schedules().set(
        Schedule.every("over", Duration.ofMinutes(1)).endingAt(START.minus(Duration.ofDays(1)))))
        .isInstanceOf(InvalidRequestException.class);
  }

  /**
   * A start in the far future: an interval keeps its first occurrence; a cron whose first
   * occurrence lies past the search range (local 9999-01-01) is refused with the reason, not
   * stored as a schedule that never fires.
   */
  @Test
  void aStartFarInTheFutureKeepsItsFirstOccurrenceOrIsRefused() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("att-far"), 1);
    ScheduleInfo interval = queue.schedules().set(Schedule.every("far-interval", Duration.ofHours(1))
        .startingAt(Instant.parse("9999-12-31T22:00:00Z")));
    assertThat(interval.nextRun()).isEqualTo(Instant.parse("9999-12-31T22:00:00Z"));
    assertThatThrownBy(() -> queue.schedules().set(Schedule.cron("far-cron", "@daily")
        .startingAt(Instant.parse("9999-06-01T00:00:00Z"))))
        .isInstanceOf(InvalidRequestException.class).hasMessageContaining("no occurrence after");
    assertThat(queue.schedules().get("far-cron")).isEmpty();
  }

  /** Empty, binary (every byte value) and limit-sized payloads, on odd names, on 64 partitions. */
  @Test
  void oddNamesAndPayloadsOnManyPartitionsRoundTrip() throws Exception {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("att-odd"), 64);
    byte[] binary = new byte[256];
    for (int i = 0; i < 256; i++) {
      binary[i] = (byte) i;
    }
    byte[] huge = new byte[Delayq.Builder.DEFAULT_MAX_PAYLOAD_BYTES];
    new java.util.Random(7).nextBytes(huge);
    String longName = ("A-z.0_9:" + "x".repeat(128)).substring(0, 128);
    Map<String, byte[]> payloads = Map.of(
        "empty", new byte[0],
        "s:o:d:", binary,
        longName, huge,
        "|", "pipe".getBytes(StandardCharsets.UTF_8));
    for (var e : payloads.entrySet()) {
      if (e.getKey().equals("|")) {
        assertThatThrownBy(() -> Schedule.every("|", Duration.ofMinutes(1))).isInstanceOf(InvalidRequestException.class);
        continue;
      }
      queue.schedules().set(Schedule.every(e.getKey(), Duration.ofMinutes(1)).startingAt(START.plusSeconds(60))
          .withPayload(e.getValue()));
    }
    assertThatThrownBy(() -> queue.schedules().set(Schedule.every("too-big", Duration.ofMinutes(1))
        .withPayload(new byte[Delayq.Builder.DEFAULT_MAX_PAYLOAD_BYTES + 1]))).isInstanceOf(InvalidRequestException.class);
    for (int m = 1; m <= 3; m++) {
      advanceTo(START.plusSeconds(60L * m));
      for (LeasedJob job : drain(queue)) {
        String name = job.id().substring(0, job.id().indexOf('@'));
        assertThat(job.payload()).as("payload of %s", job.id()).isEqualTo(payloads.get(name));
      }
    }
    assertThat(queue.schedules().list()).extracting(ScheduleInfo::name)
        .containsExactlyInAnyOrder("empty", "s:o:d:", longName);
    assertThat(queue.schedules().list()).allSatisfy(i -> assertThat(i.fired()).isEqualTo(3));
  }
}
