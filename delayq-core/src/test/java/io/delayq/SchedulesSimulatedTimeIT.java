package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayq.internal.Recurrence;
import io.delayq.internal.SimulatedTime;
import io.delayq.testing.TestRedis;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Many schedules, several processes, two simulated days on a real Redis. Every script of every
 * process reads "now" from one simulated clock (passed in as for a Redis that refuses TIME inside
 * scripts; see SimulatedTime), which the test moves forward 30 s a round. Processes crash holding
 * jobs and start again; for three hours none runs. Every occurrence must be acked exactly once,
 * none handed out early, none missing, and after the downtime each misfire policy must be seen.
 * Cron occurrence times come from delayq's own parser, which CronDifferentialTest checks against
 * Spring's.
 */
class SchedulesSimulatedTimeIT {
  private static final Instant START = Instant.parse("2026-03-28T00:00:00Z");
  private static final Duration STEP = Duration.ofSeconds(30);
  private static final int ROUNDS = 2 * 24 * 120;
  private static final int DOWN_FROM = 34 * 120; // day 2, 10:00 UTC
  private static final int DOWN_UNTIL = 37 * 120; // 13:00 UTC
  private static final int PROCESSES = 3;

  private final AtomicLong nowMicros = new AtomicLong(START.toEpochMilli() * 1000);

  @Test
  void everyOccurrenceRunsExactlyOnceAcrossProcessesCrashesAndADowntime() throws Exception {
    String queueName = TestRedis.uniqueQueue("simulated");
    List<Schedule> schedules = List.of(
        Schedule.every("every-5m", Duration.ofMinutes(5)),
        Schedule.every("every-7m-once", Duration.ofMinutes(7)).withMisfire(Misfire.runOnce()),
        Schedule.every("every-13m-upto3", Duration.ofMinutes(13)).withMisfire(Misfire.runUpTo(3)),
        Schedule.every("hourly", Duration.ofHours(1)).withMisfire(Misfire.runOnce()),
        Schedule.cron("cron-10m", "*/10 * * * *"),
        Schedule.cron("cron-hourly-ams", "0 * * * *").inZone(ZoneId.of("Europe/Amsterdam")),
        Schedule.cron("cron-0230-ams", "30 2 * * *").inZone(ZoneId.of("Europe/Amsterdam")),
        Schedule.cron("cron-1115-ny-upto3", "*/15 11 * * *").inZone(ZoneId.of("America/New_York"))
            .withMisfire(Misfire.runUpTo(3)),
        Schedule.cron("cron-every-min-once", "* * * * *").withMisfire(Misfire.runOnce()),
        Schedule.cron("cron-weekdays", "45 9 * * MON-FRI").inZone(ZoneId.of("Asia/Kolkata")));

    Delayq[] processes = new Delayq[PROCESSES];
    for (int i = 0; i < PROCESSES; i++) {
      processes[i] = start();
    }
    for (Schedule s : schedules) {
      processes[0].queue(queueName, 4).schedules().set(s);
    }
    Map<String, Long> acks = new HashMap<>();
    Map<String, Instant> dueOf = new HashMap<>();
    Random random = new Random(42);
    try {
      for (int round = 1; round <= ROUNDS; round++) {
        nowMicros.addAndGet(STEP.toNanos() / 1000);
        if (round >= DOWN_FROM && round < DOWN_UNTIL) {
          continue;
        }
        Instant now = Instant.ofEpochMilli(nowMicros.get() / 1000);
        // why: a worker whose claim returned work, or created an occurrence that is due, claims again
        // at once; the round goes on until a pass finds nothing
        boolean claimed = true;
        for (int pass = 0; claimed && pass < 10; pass++) {
        claimed = false;
        for (int i = 0; i < PROCESSES; i++) {
          if (processes[i] == null) {
            if (random.nextInt(20) == 0) {
              processes[i] = start();
            }
            continue;
          }
          boolean crashes = random.nextInt(60) == 0 && alive(processes) > 1;
          JobQueue queue = processes[i].queue(queueName, 4);
          List<LeasedJob> jobs = queue.pull().claim(100, Duration.ofMinutes(2));
          claimed |= !jobs.isEmpty();
          for (LeasedJob job : jobs) {
            assertThat(now).as("handed out no earlier than due: %s", job.id()).isAfterOrEqualTo(job.runAt());
            dueOf.putIfAbsent(job.id(), job.runAt());
            if (!crashes) {
              queue.pull().ack(job);
              acks.merge(job.id(), 1L, Long::sum);
            }
          }
          assertThat(SimulatedTime.awaitTending(Duration.ofSeconds(10))).isTrue();
          if (crashes) {
            processes[i].close();
            processes[i] = null;
          }
        }
        }
      }
    } finally {
      for (Delayq d : processes) {
        if (d != null) {
          d.close();
        }
      }
    }

    assertThat(acks.values()).as("each occurrence acked once").containsOnly(1L);
    Instant resumed = START.plus(STEP.multipliedBy(DOWN_UNTIL));
    Instant lastBeforeDown = START.plus(STEP.multipliedBy(DOWN_FROM - 1));
    Instant end = START.plus(STEP.multipliedBy(ROUNDS)).minus(Duration.ofMinutes(3));
    long compared = 0;
    for (Schedule s : schedules) {
      // interval schedules count from the time they were stored: START plus one interval
      Recurrence recurrence = Recurrence.of(s, s.every() == null ? 0 : START.plus(s.every()).toEpochMilli());
      List<Instant> expected = new ArrayList<>();
      List<Instant> missed = new ArrayList<>();
      for (long at = recurrence.nextAfter(START.toEpochMilli()); at >= 0 && at <= end.toEpochMilli();
          at = recurrence.nextAfter(at)) {
        Instant due = Instant.ofEpochMilli(at);
        boolean inDowntime = due.isAfter(lastBeforeDown) && !due.isAfter(resumed);
        Instant next = Instant.ofEpochMilli(recurrence.nextAfter(at));
        boolean late = Duration.between(due, resumed).compareTo(s.misfire().grace()) > 0 || !next.isAfter(resumed);
        if (inDowntime && late) {
          missed.add(due);
        } else {
          expected.add(due);
        }
      }
      int caughtUp = Math.min(missed.size(), s.misfire().maxRuns());
      expected.addAll(missed.subList(0, caughtUp));
      expected.sort(null);
      TreeMap<Instant, String> ran = new TreeMap<>();
      acks.keySet().stream().filter(id -> id.startsWith(s.name() + "@"))
          .forEach(id -> ran.put(dueOf.get(id), id));
      List<Instant> ranDues = new ArrayList<>(ran.headMap(end, true).keySet());
      assertThat(ranDues).as("occurrences of %s (missed in the downtime: %d, policy %s)", s.name(), missed.size(),
          s.misfire().policy()).containsExactlyElementsOf(expected);
      if (!missed.isEmpty()) {
        assertThat(ranDues).as("%s after the downtime", s.name())
            .filteredOn(d -> d.isAfter(lastBeforeDown) && !d.isAfter(resumed)).hasSize(
                (int) expected.stream().filter(d -> d.isAfter(lastBeforeDown) && !d.isAfter(resumed)).count());
      }
      compared += expected.size();
    }
    System.out.printf("simulated 2 days x %d schedules x %d processes: %d occurrences checked%n",
        schedules.size(), PROCESSES, compared);
    assertThat(compared).isGreaterThan(3000);
  }

  private Delayq start() {
    Delayq d = Delayq.connect(TestRedis.url());
    SimulatedTime.install(d, nowMicros::get);
    return d;
  }

  private static int alive(Delayq[] processes) {
    int n = 0;
    for (Delayq d : processes) {
      if (d != null) {
        n++;
      }
    }
    return n;
  }
}
