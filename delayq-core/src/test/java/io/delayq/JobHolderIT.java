package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayq.embedded.RedisServerProcess;
import io.delayq.testing.TestRedis;
import io.lettuce.core.RedisClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A job's info names the delivery holding it: its fencing token and the claiming client's process id. */
class JobHolderIT {
  @Test
  void aClaimedJobShowsItsHolderAndTokenWhichFollowEachDelivery() {
    try (Delayq claimer = Delayq.connect(TestRedis.url()); Delayq reader = Delayq.connect(TestRedis.url())) {
      JobQueue queue = claimer.queue(TestRedis.uniqueQueue("holder"));
      JobQueue seen = reader.queue(queue.name());
      queue.scheduleAll(List.of(JobRequest.of("a").withId("a"), JobRequest.of("b").withId("b"),
          JobRequest.of("k").withId("k").withOnDuplicate(DuplicatePolicy.KEEP)));
      JobInfo before = seen.get("a").orElseThrow();
      assertThat(before.fencingToken()).isZero();
      assertThat(before.holder()).isNull();

      List<LeasedJob> first = new ArrayList<>(queue.pull().claim(3, Duration.ofSeconds(30)));
      assertThat(first).hasSize(3);
      for (LeasedJob job : first) {
        JobInfo info = seen.get(job.id()).orElseThrow();
        assertThat(info.state()).isEqualTo(JobState.ACTIVE);
        assertThat(info.holder()).isEqualTo(claimer.processId());
        assertThat(info.fencingToken()).as(job.id()).isEqualTo(job.token());
      }

      // Redelivered: the new delivery's token; settled: none.
      first.sort(Comparator.comparing(LeasedJob::id));
      queue.pull().nack(first.get(0), Duration.ZERO, "again");
      assertThat(seen.get("a").orElseThrow()).satisfies(info -> {
        assertThat(info.state()).isEqualTo(JobState.SCHEDULED);
        assertThat(info.fencingToken()).isZero();
        assertThat(info.holder()).isNull();
      });
      LeasedJob again = reader.queue(queue.name()).pull().claim(1, Duration.ofSeconds(30)).get(0);
      assertThat(again.id()).isEqualTo("a");
      assertThat(seen.get("a").orElseThrow()).satisfies(info -> {
        assertThat(info.fencingToken()).isEqualTo(again.token()).isNotEqualTo(first.get(0).token());
        assertThat(info.holder()).isEqualTo(reader.processId());
      });

      // A KEEP job's lease still acks (its value carries the KEEP mark before the holder), and so does a
      // lease marked KEEP after the claim.
      queue.schedule(JobRequest.of("b").withId("b").withOnDuplicate(DuplicatePolicy.KEEP));
      queue.pull().ack(first.get(1));
      queue.pull().ack(first.get(2));
      reader.queue(queue.name()).pull().ack(again);
      assertThat(seen.get("a")).isEmpty();
      assertThat(seen.get("b")).isEmpty();
      assertThat(seen.get("k")).isEmpty();
      // Both KEEP ids are remembered for the idempotency window.
      assertThat(queue.schedule(JobRequest.of("k").withId("k").withOnDuplicate(DuplicatePolicy.KEEP)).outcome())
          .isEqualTo(ScheduledJob.Outcome.KEPT);
      assertThat(queue.schedule(JobRequest.of("b").withId("b").withOnDuplicate(DuplicatePolicy.KEEP)).outcome())
          .isEqualTo(ScheduledJob.Outcome.KEPT);
    }
  }

  @Test
  void storingTheHolderCostsTheClaimNoCommandPerJob() {
    try (RedisServerProcess server = RedisServerProcess.builder().start();
        Delayq delayq = Delayq.connect(server.uri())) {
      JobQueue queue = delayq.queue(TestRedis.uniqueQueue("holder-cost"));
      List<JobRequest> jobs = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        jobs.add(JobRequest.of("x").withId("j" + i));
      }
      queue.scheduleAll(jobs);
      RedisClient raw = RedisClient.create(server.uri());
      try (var connection = raw.connect()) {
        long hsetsBefore = calls(connection.sync().info("commandstats"), "hset");
        assertThat(queue.pull().claim(100, Duration.ofSeconds(30))).hasSize(100);
        long hsets = calls(connection.sync().info("commandstats"), "hset") - hsetsBefore;
        assertThat(hsets).as("HSET calls of one claim of 100 jobs").isEqualTo(1);
      } finally {
        raw.shutdown();
      }
    }
  }

  private static long calls(String commandStats, String command) {
    for (String line : commandStats.split("\r?\n")) {
      if (line.startsWith("cmdstat_" + command + ":")) {
        String calls = line.substring(line.indexOf("calls=") + 6);
        return Long.parseLong(calls.substring(0, calls.indexOf(',')));
      }
    }
    return 0;
  }
}
