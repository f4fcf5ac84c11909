package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delayq.testing.TestRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Producer-side operations on a real Redis: schedule, look up, cancel, reschedule, stats, pause. */
class QueueOperationsIT {
  private static Delayq delayq;
  private static RedisClient raw;
  private static StatefulRedisConnection<String, String> rawConnection;

  @BeforeAll
  static void connect() {
    delayq = Delayq.connect(TestRedis.url());
    raw = RedisClient.create(TestRedis.url());
    rawConnection = raw.connect();
  }

  @AfterAll
  static void close() {
    delayq.close();
    rawConnection.close();
    raw.shutdown();
  }

  private static long redisNowMillis() {
    List<String> time = rawConnection.sync().time();
    return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
  }

  @Test
  void scheduledJobCanBeReadBackWithItsStateTimeAndPayload() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("get"));
    long before = redisNowMillis();
    ScheduledJob scheduled =
        queue.schedule(JobRequest.of("{\"order\":42}").withId("order-42").withDelay(Duration.ofMinutes(30)).withMaxAttempts(3));
    long after = redisNowMillis();

    assertThat(scheduled.id()).isEqualTo("order-42");
    assertThat(scheduled.outcome()).isEqualTo(ScheduledJob.Outcome.CREATED);
    assertThat(scheduled.runAt().toEpochMilli())
        .isBetween(before + Duration.ofMinutes(30).toMillis(), after + Duration.ofMinutes(30).toMillis());

    JobInfo info = queue.get("order-42").orElseThrow();
    assertThat(info.state()).isEqualTo(JobState.SCHEDULED);
    assertThat(info.runAt()).isEqualTo(scheduled.runAt());
    assertThat(info.attempts()).isZero();
    assertThat(info.maxAttempts()).isEqualTo(3);
    assertThat(info.payloadAsString()).isEqualTo("{\"order\":42}");
    assertThat(info.leaseUntil()).isNull();
    assertThat(info.lastError()).isNull();
    assertThat(queue.get("no-such-job")).isEmpty();
  }

  @Test
  void aForwardingSpecIsStoredWithTheQueueReadByAnyClientAndRemovable() {
    String name = TestRedis.uniqueQueue("forward-spec");
    JobQueue queue = delayq.queue(name);
    assertThat(queue.admin().forwardingSpec()).isEmpty();
    queue.admin().setForwardingSpec("{\"type\":\"list\",\"list\":\"ready\"}");
    try (Delayq other = Delayq.connect(TestRedis.url())) {
      assertThat(other.queue(name).admin().forwardingSpec()).contains("{\"type\":\"list\",\"list\":\"ready\"}");
    }
    assertThatThrownBy(() -> queue.admin().setForwardingSpec("x".repeat(4097)))
        .isInstanceOf(InvalidRequestException.class).hasMessageContaining("4097 bytes").hasMessageContaining("4096");
    assertThat(queue.admin().forwardingSpec()).contains("{\"type\":\"list\",\"list\":\"ready\"}");
    queue.admin().setForwardingSpec(null);
    assertThat(queue.admin().forwardingSpec()).isEmpty();
  }

  @Test
  void generatedIdsAreUniqueAndUsable() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("gen"));
    ScheduledJob a = queue.schedule(JobRequest.of("a").withDelay(Duration.ofHours(1)));
    ScheduledJob b = queue.schedule(JobRequest.of("b").withDelay(Duration.ofHours(1)));
    assertThat(a.id()).isNotEqualTo(b.id()).hasSize(16);
    assertThat(queue.get(a.id()).orElseThrow().payloadAsString()).isEqualTo("a");
  }

  @Test
  void binaryPayloadsSurviveByteForByte() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("binary"));
    byte[] payload = new byte[4096];
    for (int i = 0; i < payload.length; i++) {
      payload[i] = (byte) i; // every byte value, including '|' and zeros
    }
    queue.schedule(JobRequest.of(payload).withId("bin").withDelay(Duration.ofHours(1)));
    assertThat(queue.get("bin").orElseThrow().payload()).isEqualTo(payload);
  }

  @Test
  void pastDueTimeMeansDueNow() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("past"));
    queue.schedule(JobRequest.of("late").withId("late").withRunAt(Instant.parse("2001-01-01T00:00:00Z")));
    queue.schedule(JobRequest.of("older").withId("older").withRunAt(Instant.parse("1900-01-01T00:00:00Z")));
    assertThat(queue.admin().stats().due()).isEqualTo(2);
    List<LeasedJob> claimed = queue.pull().claim(10, Duration.ofSeconds(30));
    assertThat(claimed).extracting(LeasedJob::id).containsExactlyInAnyOrder("late", "older");
  }

  @Test
  void replacePolicyOverwritesPayloadAndTime() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("replace"));
    queue.schedule(JobRequest.of("first").withId("dup").withDelay(Duration.ofHours(1)));
    ScheduledJob second =
        queue.schedule(JobRequest.of("second").withId("dup").withDelay(Duration.ofHours(2)).withOnDuplicate(DuplicatePolicy.REPLACE));

    assertThat(second.outcome()).isEqualTo(ScheduledJob.Outcome.REPLACED);
    JobInfo info = queue.get("dup").orElseThrow();
    assertThat(info.payloadAsString()).isEqualTo("second");
    assertThat(info.runAt()).isEqualTo(second.runAt());
    assertThat(queue.admin().stats().scheduled()).isEqualTo(1);
  }

  @Test
  void keepPolicyLeavesTheFirstJobAlone() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("keep"));
    ScheduledJob first = queue.schedule(JobRequest.of("first").withId("dup").withDelay(Duration.ofHours(1)));
    ScheduledJob second =
        queue.schedule(JobRequest.of("second").withId("dup").withDelay(Duration.ofMinutes(1)).withOnDuplicate(DuplicatePolicy.KEEP));

    assertThat(second.outcome()).isEqualTo(ScheduledJob.Outcome.KEPT);
    assertThat(second.runAt()).isEqualTo(first.runAt());
    JobInfo info = queue.get("dup").orElseThrow();
    assertThat(info.payloadAsString()).isEqualTo("first");
    assertThat(info.runAt()).isEqualTo(first.runAt());
  }

  @Test
  void replacingAnActiveJobIsRefusedAndKeepReportsNoDueTime() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("replace-active"));
    queue.schedule(JobRequest.of("p").withId("busy"));
    assertThat(queue.pull().claim(1, Duration.ofSeconds(30))).hasSize(1);

    assertThatThrownBy(() -> queue.schedule(JobRequest.of("new").withId("busy")))
        .isInstanceOf(JobActiveException.class)
        .hasMessageContaining("busy")
        .hasMessageContaining(queue.name());
    ScheduledJob kept = queue.schedule(JobRequest.of("new").withId("busy").withOnDuplicate(DuplicatePolicy.KEEP));
    assertThat(kept.outcome()).isEqualTo(ScheduledJob.Outcome.KEPT);
    assertThat(kept.runAt()).isNull();
    assertThat(queue.get("busy").orElseThrow().payloadAsString()).isEqualTo("p");
  }

  @Test
  void cancelRemovesAScheduledJobOnlyOnce() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("cancel"));
    queue.schedule(JobRequest.of("x").withId("c1").withDelay(Duration.ofHours(1)));
    queue.schedule(JobRequest.of("y").withId("c2").withDelay(Duration.ofHours(1)));

    assertThat(queue.cancel("c1")).isTrue();
    assertThat(queue.cancel("c1")).isFalse();
    assertThat(queue.get("c1")).isEmpty();
    assertThat(queue.get("c2")).isPresent();
    assertThat(queue.admin().stats().scheduled()).isEqualTo(1);
  }

  @Test
  void cancellingAnActiveJobIsRefused() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("cancel-active"));
    queue.schedule(JobRequest.of("x").withId("held"));
    queue.pull().claim(1, Duration.ofSeconds(30));
    assertThatThrownBy(() -> queue.cancel("held")).isInstanceOf(JobActiveException.class);
    assertThat(queue.get("held").orElseThrow().state()).isEqualTo(JobState.ACTIVE);
  }

  @Test
  void rescheduleMovesTheDueTimeAndKeepsThePayload() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("reschedule"));
    queue.schedule(JobRequest.of("keep me").withId("r").withDelay(Duration.ofHours(1)));
    Instant target = Instant.now().plus(Duration.ofDays(2)).truncatedTo(java.time.temporal.ChronoUnit.MILLIS);

    ScheduledJob moved = queue.reschedule("r", target);
    assertThat(moved.runAt()).isEqualTo(target);
    assertThat(queue.get("r").orElseThrow().runAt()).isEqualTo(target);
    assertThat(queue.get("r").orElseThrow().payloadAsString()).isEqualTo("keep me");

    ScheduledJob now = queue.reschedule("r", Duration.ZERO);
    assertThat(now.runAt()).isBeforeOrEqualTo(Instant.ofEpochMilli(redisNowMillis()));
    assertThat(queue.admin().stats().due()).isEqualTo(1);
  }

  @Test
  void rescheduleOfUnknownOrActiveJobsFailsClearly() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("reschedule-bad"));
    assertThatThrownBy(() -> queue.reschedule("ghost", Duration.ofSeconds(1)))
        .isInstanceOf(JobNotFoundException.class)
        .hasMessageContaining("ghost");
    queue.schedule(JobRequest.of("x").withId("held"));
    queue.pull().claim(1, Duration.ofSeconds(30));
    assertThatThrownBy(() -> queue.reschedule("held", Duration.ofSeconds(1)))
        .isInstanceOf(JobActiveException.class);
  }

  @Test
  void scheduleAllPipelinesManyJobsAndAnswersInOrder() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("batch"), 4);
    List<JobRequest> requests = new ArrayList<>();
    for (int i = 0; i < 5_000; i++) {
      requests.add(JobRequest.of("p" + i).withId("b-" + i).withDelay(Duration.ofHours(1)));
    }
    List<ScheduledJob> results = queue.scheduleAll(requests);
    assertThat(results).hasSize(5_000);
    for (int i = 0; i < results.size(); i++) {
      assertThat(results.get(i).id()).isEqualTo("b-" + i);
    }
    assertThat(queue.admin().stats().scheduled()).isEqualTo(5_000);
    assertThat(queue.get("b-4321").orElseThrow().payloadAsString()).isEqualTo("p4321");
  }

  @Test
  void scheduleAllAppliesTheDuplicatePolicyWithinOneBatch() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("batch-dups"));
    List<ScheduledJob> replaced = queue.scheduleAll(List.of(
        JobRequest.of("one").withId("same").withDelay(Duration.ofHours(1)),
        JobRequest.of("two").withId("same").withDelay(Duration.ofHours(2))));
    assertThat(replaced).extracting(ScheduledJob::outcome)
        .containsExactly(ScheduledJob.Outcome.CREATED, ScheduledJob.Outcome.REPLACED);
    assertThat(queue.get("same").orElseThrow().payloadAsString()).isEqualTo("two");

    List<ScheduledJob> kept = queue.scheduleAll(List.of(
        JobRequest.of("three").withId("other").withDelay(Duration.ofHours(1)),
        JobRequest.of("four").withId("other").withDelay(Duration.ofHours(2)).withOnDuplicate(DuplicatePolicy.KEEP)));
    assertThat(kept.get(1).outcome()).isEqualTo(ScheduledJob.Outcome.KEPT);
    assertThat(kept.get(1).runAt()).isEqualTo(kept.get(0).runAt());
    assertThat(queue.get("other").orElseThrow().payloadAsString()).isEqualTo("three");
  }

  @Test
  void scheduleAllSchedulesTheOthersWhenOneIsHeldByAWorker() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("batch-active"), 2);
    queue.schedule(JobRequest.of("held").withId("held"));
    assertThat(queue.pull().claim(1, Duration.ofSeconds(30))).hasSize(1);
    List<JobRequest> requests = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      requests.add(JobRequest.of("x").withId("free-" + i).withDelay(Duration.ofHours(1)));
    }
    requests.add(150, JobRequest.of("new").withId("held"));
    assertThatThrownBy(() -> queue.scheduleAll(requests))
        .isInstanceOf(JobActiveException.class)
        .hasMessageContaining("'held'")
        .hasMessageContaining("1 of 301 requests were refused");
    assertThat(queue.admin().stats().scheduled()).isEqualTo(300);
    assertThat(queue.get("held").orElseThrow().payloadAsString()).isEqualTo("held");
  }

  @Test
  void largePayloadsGoInSmallerCalls() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("batch-large"));
    List<JobRequest> requests = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      byte[] payload = new byte[900_000];
      payload[0] = (byte) i;
      requests.add(JobRequest.of(payload).withId("big-" + i).withDelay(Duration.ofHours(1)));
    }
    assertThat(queue.scheduleAll(requests)).hasSize(12);
    assertThat(queue.get("big-11").orElseThrow().payload()[0]).isEqualTo((byte) 11);
  }

  @Test
  void scheduleAllWithOneBadRequestWritesNothing() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("batch-bad"));
    List<JobRequest> requests =
        List.of(JobRequest.of("ok").withId("fine"), JobRequest.of(new byte[2 * 1024 * 1024]).withId("huge"));
    assertThatThrownBy(() -> queue.scheduleAll(requests))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("requests[1].payload")
        .hasMessageContaining("limit is 1,048,576");
    assertThat(queue.admin().stats().scheduled()).isZero();
  }

  @Test
  void payloadOverTheLimitIsRefusedWithAWayOut() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("huge"));
    assertThatThrownBy(() -> queue.schedule(JobRequest.of(new byte[1_572_864])))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("1,572,864 bytes")
        .hasMessageContaining("1,048,576")
        .hasMessageContaining("maxPayloadBytes");
    try (Delayq roomy = Delayq.builder().redisUrl(TestRedis.url()).maxPayloadBytes(4 * 1024 * 1024).build()) {
      JobQueue same = roomy.queue(queue.name());
      same.schedule(JobRequest.of(new byte[1_572_864]).withId("big").withDelay(Duration.ofHours(1)));
      assertThat(same.get("big").orElseThrow().payload()).hasSize(1_572_864);
    }
  }

  @Test
  void oddButValidIdsWork() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("odd-ids"), 3);
    List<String> ids = List.of("a|b|c", "{dq:x:0}", "ünïcødé-✓", "with space", "x".repeat(256), "*", "1|2|3|");
    for (String id : ids) {
      queue.schedule(JobRequest.of(id).withId(id).withDelay(Duration.ofHours(1)));
    }
    for (String id : ids) {
      assertThat(queue.get(id).orElseThrow().payloadAsString()).isEqualTo(id);
    }
    assertThat(queue.admin().stats().scheduled()).isEqualTo(ids.size());
  }

  @Test
  void pauseStopsClaimsAndResumeRestartsThem() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("pause"), 2);
    queue.admin().pause();
    queue.schedule(JobRequest.of("x").withId("p1"));
    queue.schedule(JobRequest.of("y").withId("p2"));
    assertThat(queue.admin().stats().paused()).isTrue();
    assertThat(queue.pull().claim(10, Duration.ofSeconds(30))).isEmpty();
    queue.admin().resume();
    assertThat(queue.admin().stats().paused()).isFalse();
    assertThat(queue.pull().claim(10, Duration.ofSeconds(30))).extracting(LeasedJob::id).containsExactlyInAnyOrder("p1", "p2");
  }

  @Test
  void partitionsSpreadJobsAndKeysCarryTheirHashTag() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("parts"), 8);
    for (int i = 0; i < 400; i++) {
      queue.schedule(JobRequest.of("x").withId("j" + i).withDelay(Duration.ofHours(1)));
    }
    int used = 0;
    for (int p = 0; p < 8; p++) {
      Long n = rawConnection.sync().zcard("{dq:" + queue.name() + ":" + p + "}:scheduled");
      assertThat(n).isLessThan(400);
      if (n > 0) {
        used++;
      }
    }
    assertThat(used).isEqualTo(8);
    assertThat(queue.admin().stats()).satisfies(s -> {
      assertThat(s.partitions()).isEqualTo(8);
      assertThat(s.scheduled()).isEqualTo(400);
    });
    assertThat(rawConnection.sync().hget("{dq:" + queue.name() + "}:settings", "partitions")).isEqualTo("8");
  }

  @Test
  void partitionCountIsStoredWithTheQueueAndReadByOtherClients() {
    String name = TestRedis.uniqueQueue("stored-parts");
    delayq.queue(name, 5);
    try (Delayq other = Delayq.connect(TestRedis.url())) {
      assertThat(other.queue(name).partitions()).isEqualTo(5);
      assertThatThrownBy(() -> other.queue(name, 3))
          .isInstanceOf(QueueConfigurationException.class)
          .hasMessageContaining("has 5 partition(s); 3 were asked for");
    }
  }

  @Test
  void anotherPartitionCountIsRefusedWithAWayToMigrateEvenForAnEmptyQueue() {
    String name = TestRedis.uniqueQueue("resize");
    try (Delayq first = Delayq.connect(TestRedis.url())) {
      first.queue(name, 4);
    }
    try (Delayq second = Delayq.connect(TestRedis.url())) {
      assertThatThrownBy(() -> second.queue(name, 6))
          .isInstanceOf(QueueConfigurationException.class)
          .hasMessageContaining("The count is fixed when a queue is first used")
          .hasMessageContaining("create a queue with a new name and 6 partitions")
          .hasMessageContaining("open '" + name + "' without a partition count to keep 4");
      assertThat(rawConnection.sync().hget("{dq:" + name + "}:settings", "partitions")).isEqualTo("4");
      assertThat(second.queue(name).partitions()).isEqualTo(4);
    }
  }

  @Test
  void badQueueNamesAndIdsAreRefusedBeforeReachingRedis() {
    assertThatThrownBy(() -> delayq.queue("has space")).isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("'has space' is not allowed").hasMessageContaining("1 to 128");
    assertThatThrownBy(() -> delayq.queue("")).isInstanceOf(InvalidRequestException.class);
    assertThatThrownBy(() -> delayq.queue("x".repeat(129))).isInstanceOf(InvalidRequestException.class);
    assertThatThrownBy(() -> delayq.queue("{tag}")).isInstanceOf(InvalidRequestException.class);
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("bad-ids"));
    assertThatThrownBy(() -> queue.get("")).isInstanceOf(InvalidRequestException.class).hasMessageContaining("id: is empty");
    assertThatThrownBy(() -> queue.cancel("é".repeat(129)))
        .isInstanceOf(InvalidRequestException.class).hasMessageContaining("258 bytes").hasMessageContaining("256");
    assertThatThrownBy(() -> queue.schedule(JobRequest.of("x").withId("line\nbreak")))
        .isInstanceOf(InvalidRequestException.class).hasMessageContaining("U+000A");
    assertThat(queue.admin().stats().scheduled()).isZero();
  }

  @Test
  void closedClientRefusesWork() {
    Delayq client = Delayq.connect(TestRedis.url());
    JobQueue queue = client.queue(TestRedis.uniqueQueue("closed"));
    client.close();
    client.close(); // idempotent
    assertThat(client.isClosed()).isTrue();
    assertThatThrownBy(() -> queue.schedule(JobRequest.of("x")))
        .isInstanceOf(DelayqClosedException.class)
        .hasMessageContaining("closed");
    assertThatThrownBy(() -> client.queue("other")).isInstanceOf(DelayqClosedException.class);
  }

  @Test
  void deadLetterListingIsEmptyForANewQueue() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("dead-empty"));
    assertThat(queue.admin().deadJobs(10)).isEmpty();
    assertThat(queue.admin().requeueDead("nope")).isFalse();
    assertThat(queue.admin().deleteDead("nope")).isFalse();
    assertThatThrownBy(() -> queue.admin().deadJobs(0)).isInstanceOf(InvalidRequestException.class);
  }

  @Test
  void scriptsAreReloadedAfterRedisForgetsThem() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("noscript"));
    queue.schedule(JobRequest.of("before").withId("s1").withDelay(Duration.ofHours(1)));
    rawConnection.sync().scriptFlush();
    queue.schedule(JobRequest.of("after").withId("s2").withDelay(Duration.ofHours(1)));
    Optional<JobInfo> info = queue.get("s2");
    assertThat(info).isPresent();
    assertThat(info.get().payload()).isEqualTo("after".getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void aDeadJobIsRequeuedOrDeletedWithADeathBoundOnlyIfItDiedByThen() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("dead-bound"));
    queue.schedule(JobRequest.of("d").withId("d").withMaxAttempts(1));
    LeasedJob job = queue.pull().claim(1, Duration.ofMinutes(1)).get(0);
    queue.pull().bury(job.id(), job.token(), "first");
    Instant diedAt = queue.get("d").orElseThrow().deadAt();

    assertThat(queue.admin().requeueDead("d", diedAt.minusMillis(1))).isFalse();
    assertThat(queue.admin().deleteDead("d", diedAt.minusMillis(1))).isFalse();
    assertThat(queue.get("d").orElseThrow().state()).as("left dead").isEqualTo(JobState.DEAD);
    assertThat(queue.get("d").orElseThrow().lastError()).isEqualTo("first");

    assertThat(queue.admin().requeueDead("d", diedAt)).isTrue();
    assertThat(queue.get("d").orElseThrow().state()).isEqualTo(JobState.SCHEDULED);
    assertThat(queue.admin().requeueDead("d", diedAt)).as("no longer dead").isFalse();
    LeasedJob again = queue.pull().claim(1, Duration.ofMinutes(1)).get(0);
    queue.pull().bury(again.id(), again.token(), "second");
    Instant diedAgainAt = queue.get("d").orElseThrow().deadAt();

    assertThat(queue.admin().deleteDead("d", diedAgainAt.minusMillis(1))).isFalse();
    assertThat(queue.get("d")).isPresent();
    assertThat(queue.admin().deleteDead("d", diedAgainAt.plusSeconds(60))).isTrue();
    assertThat(queue.get("d")).isEmpty();
    assertThat(queue.admin().deleteDead("d", Instant.MAX)).isFalse();
    assertThat(queue.admin().requeueDead("missing", Instant.MAX)).isFalse();

    // null bound: any death time, as the one-argument forms
    queue.schedule(JobRequest.of("e").withId("e").withMaxAttempts(1));
    LeasedJob e = queue.pull().claim(1, Duration.ofMinutes(1)).get(0);
    queue.pull().bury(e.id(), e.token(), "boom");
    assertThat(queue.admin().requeueDead("e", Instant.MIN)).isFalse();
    assertThat(queue.admin().requeueDead("e", null)).isTrue();
  }
}
