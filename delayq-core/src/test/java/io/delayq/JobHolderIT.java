package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.embedded.RedisServerProcess;
import io.delayq.internal.Keys;
import io.delayq.testing.TestRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
  void listedJobsShowTheHolderAndTokenOfTheirDeliveryAsGetDoes() {
    try (Delayq first = Delayq.connect(TestRedis.url()); Delayq second = Delayq.connect(TestRedis.url());
        Delayq reader = Delayq.connect(TestRedis.url())) {
      String name = TestRedis.uniqueQueue("holder-list");
      JobQueue byFirst = first.queue(name, 3);
      JobQueue bySecond = second.queue(name, 3);
      JobQueue seen = reader.queue(name);
      byFirst.schedule(JobRequest.of("d").withId("dead").withMaxAttempts(1));
      LeasedJob doomed = byFirst.pull().claim(1, Duration.ofMinutes(1)).get(0);
      byFirst.pull().nack(doomed, Duration.ZERO, "boom");
      for (int i = 0; i < 10; i++) {
        byFirst.schedule(JobRequest.of("job " + i).withId("held-" + i));
      }
      byFirst.schedule(JobRequest.of("later").withId("later").withDelay(Duration.ofHours(1)));

      // The latest delivery of each job, and which client took it.
      Map<String, LeasedJob> deliveries = new HashMap<>();
      Map<String, String> holders = new HashMap<>();
      List<LeasedJob> firstTaken = byFirst.pull().claim(3, Duration.ofMinutes(5));
      firstTaken.forEach(job -> record(deliveries, holders, job, first));
      LeasedJob handedBack = firstTaken.get(0);
      byFirst.pull().nack(handedBack, Duration.ZERO, "again");
      bySecond.pull().claim(4, Duration.ofMinutes(5)).forEach(job -> record(deliveries, holders, job, second));
      byFirst.pull().claim(2, Duration.ofMillis(300)).forEach(job -> record(deliveries, holders, job, first));
      bySecond.pull().claim(2, Duration.ofMillis(300)).forEach(job -> record(deliveries, holders, job, second));
      assertThat(deliveries).hasSize(10);
      assertThat(deliveries.get(handedBack.id()).token()).isNotEqualTo(handedBack.token());

      await().atMost(Duration.ofSeconds(10))
          .until(() -> seen.admin().listJobs(JobFilter.EXPIRED, null, 100).items().size() == 4);
      List<JobInfo> active = seen.admin().listJobs(JobFilter.ACTIVE, null, 100).items();
      List<JobInfo> expired = seen.admin().listJobs(JobFilter.EXPIRED, null, 100).items();

      assertThat(active).hasSize(6);
      assertThat(expired).hasSize(4);
      for (JobInfo job : concat(active, expired)) {
        assertThat(job.holder()).as(job.id()).isEqualTo(holders.get(job.id()));
        assertThat(job.fencingToken()).as(job.id()).isEqualTo(deliveries.get(job.id()).token());
        assertThat(job.leaseUntil()).as(job.id()).isEqualTo(deliveries.get(job.id()).leaseUntil());
        assertThat(job).isEqualTo(seen.get(job.id()).orElseThrow());
      }
      assertThat(active).extracting(JobInfo::holder).containsOnly(first.processId(), second.processId())
          .contains(first.processId(), second.processId());
      assertThat(expired).extracting(JobInfo::holder).containsOnly(first.processId(), second.processId())
          .contains(first.processId(), second.processId());
      assertThat(expired).allSatisfy(job -> assertThat(job.state()).isEqualTo(JobState.EXPIRED));

      List<JobInfo> scheduled = seen.admin().listJobs(JobFilter.SCHEDULED, null, 100).items();
      List<JobInfo> dead = seen.admin().listJobs(JobFilter.DEAD, null, 100).items();
      assertThat(scheduled).extracting(JobInfo::id).containsExactly("later");
      assertThat(dead).extracting(JobInfo::id).containsExactly("dead");
      for (JobInfo job : concat(scheduled, dead)) {
        assertThat(job.fencingToken()).as(job.id()).isZero();
        assertThat(job.holder()).as(job.id()).isNull();
        assertThat(job).isEqualTo(seen.get(job.id()).orElseThrow());
      }
    }
  }

  @Test
  void aLeaseValueWithoutAHolderOrLongerThanAnyClaimWritesListsAsGetShowsIt() {
    try (RedisServerProcess server = RedisServerProcess.builder().start();
        Delayq delayq = Delayq.connect(server.uri())) {
      String name = TestRedis.uniqueQueue("holder-old");
      JobQueue queue = delayq.queue(name, 1);
      queue.scheduleAll(List.of(JobRequest.of("o").withId("old"), JobRequest.of("p").withId("placed"),
          JobRequest.of("l").withId("long"), JobRequest.of("n").withId("new")));
      Map<String, LeasedJob> taken = new HashMap<>();
      queue.pull().claim(4, Duration.ofMinutes(5)).forEach(job -> taken.put(job.id(), job));
      assertThat(taken).hasSize(4);
      long claim = Math.floorDiv(taken.get("old").token(), 1000);

      // As a client before 0.4.0 wrote them, as another program might, and longer than a claim writes.
      RedisClient raw = RedisClient.create(server.uri());
      try (var connection = raw.connect(ByteArrayCodec.INSTANCE)) {
        byte[] leases = Keys.partition(name, 0).leases();
        connection.sync().hset(leases, utf8("old"), utf8(Long.toString(claim)));
        connection.sync().hset(leases, utf8("placed"), utf8(claim + "@1"));
        connection.sync().hset(leases, utf8("long"), utf8(claim + "@2@" + "h".repeat(200)));
      } finally {
        raw.shutdown();
      }

      List<JobInfo> active = queue.admin().listJobs(JobFilter.ACTIVE, null, 100).items();
      assertThat(active).hasSize(4);
      for (JobInfo job : active) {
        assertThat(job).isEqualTo(queue.get(job.id()).orElseThrow());
        if (job.id().equals("new")) {
          assertThat(job.fencingToken()).isEqualTo(taken.get("new").token());
          assertThat(job.holder()).isEqualTo(delayq.processId());
        } else {
          assertThat(job.fencingToken()).as(job.id()).isZero();
          assertThat(job.holder()).as(job.id()).isNull();
        }
      }
      // Still the lease of that claim: its delivery settles.
      queue.pull().ack(taken.get("old"));
      assertThat(queue.get("old")).isEmpty();
    }
  }

  private static void record(Map<String, LeasedJob> deliveries, Map<String, String> holders, LeasedJob job,
      Delayq claimer) {
    deliveries.put(job.id(), job);
    holders.put(job.id(), claimer.processId());
  }

  private static List<JobInfo> concat(List<JobInfo> a, List<JobInfo> b) {
    List<JobInfo> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
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
