package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayq.internal.SimulatedTime;
import io.delayq.testing.TestRedis;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Races around recurring schedules, on a simulated clock so that "the due instant" is exact:
 * concurrent upserts, remove during a fire, pause and resume across an occurrence, an update at
 * the due instant.
 */
class SchedulesRacesIT {
  private static final Instant T = Instant.parse("2027-01-04T08:00:00Z");
  // why: one second past T, so that a schedule stored at the start is not due at once
  private final AtomicLong nowMicros = new AtomicLong(T.toEpochMilli() * 1000 + 1_000_000);
  private final List<Delayq> clients = new ArrayList<>();

  @BeforeEach
  void clients() {
    for (int i = 0; i < 4; i++) {
      Delayq d = Delayq.connect(TestRedis.url());
      SimulatedTime.install(d, nowMicros::get);
      clients.add(d);
    }
  }

  @AfterEach
  void close() {
    clients.forEach(Delayq::close);
  }

  private void advance(Duration d) {
    nowMicros.addAndGet(d.toNanos() / 1000);
  }

  private List<LeasedJob> claimAll(JobQueue queue) throws InterruptedException {
    List<LeasedJob> jobs = queue.pull().claim(100, Duration.ofMinutes(5));
    assertThat(SimulatedTime.awaitTending(Duration.ofSeconds(10))).isTrue();
    return jobs;
  }

  @Test
  void concurrentUpsertsFromManyClientsLeaveOnePendingOccurrenceOfTheLastDefinition() throws Exception {
    String name = TestRedis.uniqueQueue("upserts");
    int threads = 8;
    int each = 25;
    CyclicBarrier start = new CyclicBarrier(threads);
    List<CompletableFuture<Void>> racers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int thread = t;
      JobQueue queue = clients.get(t % clients.size()).queue(name, 8);
      racers.add(CompletableFuture.runAsync(() -> {
        try {
          start.await();
          for (int i = 0; i < each; i++) {
            Schedule s = (i + thread) % 2 == 0
                ? Schedule.cron("report", "*/5 * * * *").withPayload("t" + thread + "-" + i)
                : Schedule.every("report", Duration.ofMinutes(3)).withPayload("t" + thread + "-" + i);
            queue.schedules().set(s);
          }
        } catch (Exception e) {
          throw new RuntimeException(e);
        }
      }));
    }
    CompletableFuture.allOf(racers.toArray(CompletableFuture[]::new)).join();
    JobQueue queue = clients.get(0).queue(name, 8);
    ScheduleInfo info = queue.schedules().get("report").orElseThrow();
    assertThat(info.version()).isEqualTo((long) threads * each);
    assertThat(queue.admin().stats().scheduled()).as("exactly one pending occurrence").isEqualTo(1);
    JobInfo pending = queue.get(info.pendingJobId()).orElseThrow();
    assertThat(pending.payloadAsString()).isEqualTo(new String(info.schedule().payload()));

    nowMicros.set(info.nextRun().toEpochMilli() * 1000 + 1_000_000);
    List<LeasedJob> fired = claimAll(queue);
    assertThat(fired).extracting(LeasedJob::id).containsExactly(info.pendingJobId());
  }

  @Test
  void removingAScheduleWhileItsOccurrenceRunsLetsThatRunFinishAndCreatesNoMore() throws Exception {
    JobQueue queue = clients.get(0).queue(TestRedis.uniqueQueue("remove-during"), 4);
    queue.schedules().set(Schedule.every("r", Duration.ofMinutes(1)));
    advance(Duration.ofMinutes(1));
    List<LeasedJob> running = claimAll(queue);
    assertThat(running).hasSize(1);
    assertThat(queue.admin().stats().scheduled()).as("the next occurrence exists").isEqualTo(1);
    assertThat(clients.get(1).queue(queue.name()).schedules().remove("r")).isTrue();
    queue.pull().ack(running.get(0));
    QueueStats stats = queue.admin().stats();
    assertThat(stats.scheduled() + stats.active()).isZero();
    advance(Duration.ofMinutes(10));
    assertThat(claimAll(queue)).isEmpty();
  }

  @Test
  void anOccurrenceDueWhilePausedDoesNotRunAndResumeStartsAtTheNextOne() throws Exception {
    JobQueue queue = clients.get(0).queue(TestRedis.uniqueQueue("pause-across"), 2);
    queue.schedules().set(Schedule.cron("p", "* * * * *"));
    advance(Duration.ofMinutes(1));
    queue.schedules().pause("p");
    assertThat(claimAll(queue)).isEmpty();
    advance(Duration.ofSeconds(10));
    ScheduleInfo resumed = clients.get(2).queue(queue.name()).schedules().resume("p");
    assertThat(resumed.nextRun()).isEqualTo(T.plus(Duration.ofMinutes(2)));
    advance(Duration.ofSeconds(50));
    assertThat(claimAll(queue)).extracting(LeasedJob::runAt).containsExactly(T.plus(Duration.ofMinutes(2)));
  }

  @Test
  void anUpdateAtTheDueInstantKeepsThatOccurrenceOwedAndGivesItTheNewPayload() throws Exception {
    JobQueue queue = clients.get(0).queue(TestRedis.uniqueQueue("update-at-due"), 4);
    ScheduleInfo first = queue.schedules().set(Schedule.cron("u", "* * * * *").withPayload("old"));
    advance(Duration.ofMillis(59_200));
    ScheduleInfo updated = queue.schedules().set(Schedule.cron("u", "* * * * *").withPayload("new"));
    assertThat(updated.pendingJobId()).isEqualTo(first.pendingJobId());
    List<LeasedJob> fired = claimAll(queue);
    assertThat(fired).extracting(LeasedJob::id, LeasedJob::payloadAsString)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(first.pendingJobId(), "new"));
    assertThat(queue.admin().stats().scheduled()).isEqualTo(1);
  }

  @Test
  void overlapSkipPassesOverAnOccurrenceWhileTheOneBeforeIsStillHeld() throws Exception {
    JobQueue queue = clients.get(0).queue(TestRedis.uniqueQueue("overlap"), 4);
    queue.schedules().set(Schedule.every("o", Duration.ofMinutes(1)).withOverlap(Overlap.SKIP));
    advance(Duration.ofMinutes(1));
    List<LeasedJob> first = claimAll(queue);
    assertThat(first).hasSize(1);
    advance(Duration.ofMinutes(1));
    assertThat(claimAll(queue)).as("the second occurrence overlaps the first, still held").isEmpty();
    queue.pull().ack(first.get(0));
    advance(Duration.ofMinutes(1));
    assertThat(claimAll(queue)).extracting(LeasedJob::runAt).containsExactly(T.plus(Duration.ofMinutes(3)).plusSeconds(1));
    ScheduleInfo info = queue.schedules().get("o").orElseThrow();
    assertThat(info.fired()).isEqualTo(2);
    assertThat(info.skipped()).isEqualTo(1);
  }
}
