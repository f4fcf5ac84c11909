package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.delayq.SortedSetAdoption.Mode;
import io.delayq.SortedSetAdoption.ScoreUnit;
import io.delayq.testing.TestRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Adopting a hand-rolled sorted-set delay queue on a real Redis: producers that write {@code ZADD key
 * <due> <payload>} the way existing Python and Java code does, old consumers that claim by {@code
 * ZREM}, and delayq workers, all at once.
 */
class SortedSetAdoptionIT {
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static Delayq delayq;
  private static RedisClient redisClient;
  private static StatefulRedisConnection<String, String> connection;
  private static RedisCommands<String, String> redis;

  @BeforeAll
  static void connect() {
    delayq = Delayq.connect(TestRedis.url());
    redisClient = RedisClient.create(TestRedis.url());
    connection = redisClient.connect();
    redis = connection.sync();
  }

  @AfterAll
  static void close() {
    if (delayq != null) {
      delayq.close();
    }
    if (connection != null) {
      connection.close();
      redisClient.shutdown();
    }
  }

  /** One delivery as a worker saw it: the claim's time by the Redis clock, and the job. */
  private record Delivery(String id, long claimedMs, long runAtMs, boolean json) {}

  @Test
  void aBridgeTurnsTenThousandMembersWrittenMeanwhileIntoOneDeliveryEachNeverEarly() throws Exception {
    JobQueue orders = delayq.queue(TestRedis.uniqueQueue("adopt-seconds"), 4);
    JobQueue reminders = delayq.queue(TestRedis.uniqueQueue("adopt-millis"), 4);
    String secondsKey = "legacy:" + orders.name();
    String millisKey = "legacy:" + reminders.name();
    Map<String, Long> intendedDue = new ConcurrentHashMap<>();
    Map<String, ConcurrentLinkedQueue<Delivery>> delivered = new ConcurrentHashMap<>();
    WorkerOptions options = WorkerOptions.builder().concurrency(8).lease(LEASE).build();
    JobHandler handler = job -> delivered
        .computeIfAbsent(job.payloadAsString(), m -> new ConcurrentLinkedQueue<>())
        .add(new Delivery(job.id(), job.leaseUntil().toEpochMilli() - LEASE.toMillis(), job.runAt().toEpochMilli(),
            job.payloadIsJson()));
    int perProducer = 2_500;
    ExecutorService producers = Executors.newFixedThreadPool(4);
    try (Workers w1 = orders.startWorkers(handler, options);
        Workers w2 = reminders.startWorkers(handler, options);
        SortedSetBridge fromSeconds = orders.adopt(SortedSetAdoption.from(secondsKey)
            .scoreUnit(ScoreUnit.SECONDS).jobIdFromJsonField("orderId").pollInterval(Duration.ofMillis(200)).build());
        SortedSetBridge fromMillis = reminders.adopt(SortedSetAdoption.from(millisKey)
            .scoreUnit(ScoreUnit.MILLISECONDS).pollInterval(Duration.ofMillis(200)).build())) {
      List<Future<?>> writing = new ArrayList<>();
      for (int t = 0; t < 2; t++) {
        int producer = t;
        // Python: redis.zadd(key, {json.dumps(order): int(time.time()) + interval})
        writing.add(producers.submit(() -> withRedis(r -> {
          for (int i = 0; i < perProducer; i++) {
            long dueSeconds = System.currentTimeMillis() / 1000 + (i % 3);
            String member = "{\"orderId\":\"o-" + producer + "-" + i + "\",\"amount\":" + i + "}";
            intendedDue.put(member, dueSeconds * 1000);
            r.zadd(secondsKey, dueSeconds, member);
          }
        })));
        // Java: jedis.zadd(key, System.currentTimeMillis() + delay, payload), each payload written twice
        writing.add(producers.submit(() -> withRedis(r -> {
          for (int i = 0; i < perProducer; i += 2) {
            long due = System.currentTimeMillis() + 500 + (i % 2_000);
            String member = "remind user " + producer + "-" + i;
            intendedDue.put(member, due);
            r.zadd(millisKey, due, member);
            r.zadd(millisKey, due, member);
          }
        })));
      }
      for (Future<?> f : writing) {
        f.get(60, TimeUnit.SECONDS);
      }
      int distinct = intendedDue.size();
      assertThat(distinct).isEqualTo(2 * perProducer + perProducer);
      await().atMost(Duration.ofSeconds(90)).until(() -> delivered.size() == distinct
          && orders.admin().stats().active() + reminders.admin().stats().active() == 0
          && orders.admin().stats().scheduled() + reminders.admin().stats().scheduled() == 0);

      assertThat(delivered.keySet()).isEqualTo(intendedDue.keySet());
      List<String> early = new ArrayList<>();
      delivered.forEach((member, ds) -> {
        assertThat(ds).as("deliveries of %s", member).hasSize(1);
        Delivery d = ds.peek();
        long due = intendedDue.get(member);
        assertThat(d.runAtMs).as("due time of %s", member).isEqualTo(due);
        if (d.claimedMs < due) {
          early.add(member + " claimed at " + d.claimedMs + ", due " + due);
        }
        if (member.startsWith("{")) {
          assertThat(d.id).isEqualTo(member.substring(12, member.indexOf('"', 12)));
          assertThat(d.json).as("a JSON member is marked as JSON").isTrue();
        } else {
          assertThat(d.id).isEqualTo("sha256:" + sha256(member));
          assertThat(d.json).isFalse();
        }
      });
      assertThat(early).isEmpty();
      assertThat(redis.zcard(secondsKey)).isZero();
      assertThat(redis.zcard(millisKey)).isZero();

      AdoptionReport seconds = fromSeconds.status().totals();
      assertThat(seconds.moved()).isEqualTo(2L * perProducer);
      assertThat(seconds.merged()).isZero();
      assertThat(seconds.hashedIds()).isZero();
      assertThat(seconds.unit()).isEqualTo(ScoreUnit.SECONDS);
      AdoptionReport millis = fromMillis.status().totals();
      assertThat(millis.moved()).as("one job per distinct payload").isEqualTo(perProducer);
      assertThat(millis.merged()).as("a second write that came after the first was moved").isBetween(0L, (long) perProducer);
      assertThat(fromSeconds.status().lastError()).isNull();
      assertThat(fromMillis.status().state()).isEqualTo(SortedSetBridge.State.RUNNING);
    } finally {
      producers.shutdownNow();
    }
  }

  @Test
  void oldConsumersStillRunningAndTheBridgeProcessEveryMemberExactlyOnceBetweenThem() throws Exception {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("adopt-shared"), 2);
    String key = "legacy:" + queue.name();
    int total = 3_000;
    Map<String, AtomicInteger> processed = new ConcurrentHashMap<>();
    AtomicInteger byOld = new AtomicInteger();
    AtomicInteger byDelayq = new AtomicInteger();
    AtomicBoolean running = new AtomicBoolean(true);
    ExecutorService threads = Executors.newFixedThreadPool(3);
    // The Lua flavour of the old consumer: read and remove in one script.
    String claimScript = "local m = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, 10)\n"
        + "for _, v in ipairs(m) do redis.call('ZREM', KEYS[1], v) end\nreturn m";
    try (Workers workers = queue.startWorkers(job -> {
          processed.computeIfAbsent(job.payloadAsString(), m -> new AtomicInteger()).incrementAndGet();
          byDelayq.incrementAndGet();
        }, WorkerOptions.builder().concurrency(4).build());
        SortedSetBridge bridge = queue.adopt(SortedSetAdoption.from(key)
            .scoreUnit(ScoreUnit.MILLISECONDS).pollInterval(Duration.ofMillis(300)).build())) {
      Future<?> loop = threads.submit(() -> withRedis(r -> {
        // The classic loop: ZRANGEBYSCORE key -inf now LIMIT 0 n, then ZREM; processed only if ZREM said 1.
        while (running.get()) {
          List<String> due = r.zrangebyscore(key, io.lettuce.core.Range.create(Double.NEGATIVE_INFINITY,
              (double) System.currentTimeMillis()), io.lettuce.core.Limit.create(0, 10));
          for (String member : due) {
            if (r.zrem(key, member) == 1) {
              processed.computeIfAbsent(member, m -> new AtomicInteger()).incrementAndGet();
              byOld.incrementAndGet();
            }
          }
          if (due.isEmpty()) {
            pause(10); // the old consumer's own poll interval
          }
        }
      }));
      Future<?> scripted = threads.submit(() -> withRedis(r -> {
        while (running.get()) {
          List<String> taken = r.eval(claimScript, ScriptOutputType.MULTI, new String[] {key},
              Long.toString(System.currentTimeMillis()));
          for (String member : taken) {
            processed.computeIfAbsent(member, m -> new AtomicInteger()).incrementAndGet();
            byOld.incrementAndGet();
          }
          if (taken.isEmpty()) {
            pause(10);
          }
        }
      }));
      Future<?> producer = threads.submit(() -> withRedis(r -> {
        for (int i = 0; i < total; i++) {
          r.zadd(key, System.currentTimeMillis() + (i % 1_500), "task-" + i);
          if (i % 100 == 99) {
            pause(30);
          }
        }
      }));
      producer.get(60, TimeUnit.SECONDS);
      await().atMost(Duration.ofSeconds(60)).until(() -> processed.size() == total && workers.inFlight() == 0);
      running.set(false);
      loop.get(10, TimeUnit.SECONDS);
      scripted.get(10, TimeUnit.SECONDS);
    } finally {
      running.set(false);
      threads.shutdownNow();
    }
    assertThat(processed).hasSize(total);
    assertThat(processed.values()).allSatisfy(n -> assertThat(n).hasValue(1));
    assertThat(byOld.get() + byDelayq.get()).isEqualTo(total);
    assertThat(byOld.get()).as("the old consumers took some").isPositive();
    assertThat(byDelayq.get()).as("delayq took some").isPositive();
    assertThat(redis.zcard(key)).isZero();
    assertThat(queue.admin().stats().scheduled()).isZero();
  }

  @Test
  void aOneShotImportMovesEveryMemberAndFutureOnesRunAtTheirTime() throws Exception {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("adopt-import"), 3);
    String key = "legacy:" + queue.name();
    long now = redisNowMs();
    Map<String, Long> due = new ConcurrentHashMap<>();
    for (int i = 0; i < 300; i++) {
      due.put("past-" + i, now - 1_000 - i);
    }
    for (int i = 0; i < 100; i++) {
      due.put("soon-" + i, now + 2_000 + i);
    }
    for (int i = 0; i < 50; i++) {
      due.put("tomorrow-" + i, now + Duration.ofDays(1).toMillis() + i);
    }
    due.forEach((member, at) -> redis.zadd(key, at, member));

    AdoptionReport report = queue.importSortedSet(
        SortedSetAdoption.from(key).scoreUnit(ScoreUnit.MILLISECONDS).moving(Mode.ALL).batch(64).build());

    assertThat(report.moved()).isEqualTo(450);
    assertThat(report.merged() + report.takenByOthers() + report.heldBack() + report.rejected()).isZero();
    assertThat(report.remaining()).isZero();
    assertThat(report.unit()).isEqualTo(ScoreUnit.MILLISECONDS);
    assertThat(redis.exists(key)).isZero();
    assertThat(queue.admin().stats().scheduled()).isEqualTo(450);
    JobInfo later = queue.get("sha256:" + sha256("tomorrow-7")).orElseThrow();
    assertThat(later.state()).isEqualTo(JobState.SCHEDULED);
    assertThat(later.runAt()).isEqualTo(Instant.ofEpochMilli(due.get("tomorrow-7")));
    assertThat(later.payload()).isEqualTo("tomorrow-7".getBytes(StandardCharsets.UTF_8));

    Map<String, Long> claimed = new ConcurrentHashMap<>();
    try (Workers workers = queue.startWorkers(
        job -> claimed.put(job.payloadAsString(), job.leaseUntil().toEpochMilli() - LEASE.toMillis()),
        WorkerOptions.builder().lease(LEASE).build())) {
      await().atMost(Duration.ofSeconds(30)).until(() -> claimed.size() == 400 && workers.inFlight() == 0);
    }
    assertThat(claimed.keySet()).noneMatch(m -> m.startsWith("tomorrow-"));
    claimed.forEach((member, at) -> assertThat(at).as("claim of %s", member).isGreaterThanOrEqualTo(due.get(member)));
    assertThat(queue.admin().stats().scheduled()).as("tomorrow's jobs wait for tomorrow").isEqualTo(50);
  }

  @Test
  void detectReadsSecondsAndMillisecondsAndRefusesMixedOrAmbiguousScores() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("adopt-detect"), 2);
    long nowSeconds = redisNowMs() / 1000;
    String seconds = "legacy:" + queue.name() + ":s";
    redis.zadd(seconds, nowSeconds + 3_600, "in an hour");
    redis.zadd(seconds, nowSeconds - 10, "ten seconds ago");
    redis.zadd(seconds, nowSeconds + 60.5, "in a minute and a half second");
    AdoptionReport s = queue.importSortedSet(SortedSetAdoption.from(seconds).moving(Mode.ALL).build());
    assertThat(s.unit()).isEqualTo(ScoreUnit.SECONDS);
    assertThat(s.moved()).isEqualTo(3);
    assertThat(runAt(queue, "in an hour")).isEqualTo((nowSeconds + 3_600) * 1000);
    assertThat(runAt(queue, "in a minute and a half second")).isEqualTo((nowSeconds + 60) * 1000 + 500);

    String millis = "legacy:" + queue.name() + ":ms";
    long nowMs = redisNowMs();
    redis.zadd(millis, nowMs + 3_600_000, "ms in an hour");
    redis.zadd(millis, nowMs - 10, "ms ten ago");
    AdoptionReport ms = queue.importSortedSet(SortedSetAdoption.from(millis).moving(Mode.ALL).build());
    assertThat(ms.unit()).isEqualTo(ScoreUnit.MILLISECONDS);
    assertThat(runAt(queue, "ms in an hour")).isEqualTo(nowMs + 3_600_000);

    String mixed = "legacy:" + queue.name() + ":mixed";
    redis.zadd(mixed, nowSeconds + 5, "python");
    redis.zadd(mixed, nowMs + 5_000, "java");
    SortedSetAdoption detect = SortedSetAdoption.from(mixed).moving(Mode.ALL).build();
    assertThatThrownBy(() -> queue.importSortedSet(detect))
        .isInstanceOfSatisfying(InvalidRequestException.class, e -> assertThat(e.field()).isEqualTo("scoreUnit"))
        .hasMessageContaining("both units");
    assertThatThrownBy(() -> queue.adopt(detect)).isInstanceOf(InvalidRequestException.class);
    assertThat(redis.zcard(mixed)).as("nothing moved").isEqualTo(2);

    String ambiguous = "legacy:" + queue.name() + ":ambiguous";
    redis.zadd(ambiguous, 5e11, "year 17814 or 1985?");
    assertThatThrownBy(() -> queue.importSortedSet(SortedSetAdoption.from(ambiguous).build()))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("cannot tell the unit of score 500000000000");
    assertThat(redis.zcard(ambiguous)).isEqualTo(1);
    assertThat(queue.admin().stats().scheduled()).isEqualTo(5);
  }

  @Test
  void aBridgeThatDetectedSecondsStopsWhenMillisecondsAppearAndGoesOnOnceTheyAreGone() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("adopt-redetect"), 1);
    String key = "legacy:" + queue.name();
    long nowSeconds = redisNowMs() / 1000;
    redis.zadd(key, nowSeconds - 1, "first");
    try (SortedSetBridge bridge = queue.adopt(
        SortedSetAdoption.from(key).pollInterval(Duration.ofMillis(50)).build())) {
      await().atMost(Duration.ofSeconds(10)).until(() -> bridge.status().totals().moved() == 1);
      assertThat(bridge.status().totals().unit()).isEqualTo(ScoreUnit.SECONDS);
      long javaScore = redisNowMs() - 1;
      redis.zadd(key, javaScore, "written by a Java producer");
      redis.zadd(key, nowSeconds - 1, "second");
      await().atMost(Duration.ofSeconds(10)).until(() -> bridge.status().state() == SortedSetBridge.State.REFUSING);
      // "both units", or "detected as SECONDS ... the other unit" if a pass ran between the two writes
      assertThat(bridge.status().lastError()).startsWith("scoreUnit: ").contains(Long.toString(javaScore));
      assertThat(redis.zcard(key)).as("nothing moved while refusing").isEqualTo(2);
      redis.zrem(key, "written by a Java producer");
      await().atMost(Duration.ofSeconds(10)).until(() -> bridge.status().totals().moved() == 2);
      assertThat(bridge.status().state()).isEqualTo(SortedSetBridge.State.RUNNING);
    }
  }

  @Test
  void aKeyOfAnotherTypeIsRefusedAndLeftAsItWas() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("adopt-wrongtype"), 1);
    String key = "legacy:" + queue.name();
    redis.rpush(key, "a", "b");
    SortedSetAdoption options = SortedSetAdoption.from(key).build();
    assertThatThrownBy(() -> queue.importSortedSet(options))
        .isInstanceOfSatisfying(InvalidRequestException.class, e -> assertThat(e.field()).isEqualTo("source"))
        .hasMessageContaining("holds a list, not a sorted set");
    assertThatThrownBy(() -> queue.adopt(options)).isInstanceOf(InvalidRequestException.class);
    assertThat(redis.lrange(key, 0, -1)).containsExactly("a", "b");

    // A key that changes type under a running bridge: it stops moving and says why.
    String changing = key + ":changing";
    redis.zadd(changing, redisNowMs() + 60_000, "later");
    try (SortedSetBridge bridge = queue.adopt(SortedSetAdoption.from(changing).pollInterval(Duration.ofMillis(50)).build())) {
      await().atMost(Duration.ofSeconds(10)).until(() -> bridge.status().lastPassAt() != null);
      redis.del(changing);
      redis.rpush(changing, "x");
      await().atMost(Duration.ofSeconds(10)).until(() -> bridge.status().state() == SortedSetBridge.State.REFUSING);
      assertThat(bridge.status().lastError()).contains("holds a list, not a sorted set");
      assertThat(redis.lrange(changing, 0, -1)).containsExactly("x");
    }
  }

  @Test
  void membersDelayqCannotHoldStayInTheSourceWithoutBlockingTheOthers() {
    String name = TestRedis.uniqueQueue("adopt-oversize");
    String key = "legacy:" + name;
    try (Delayq small = Delayq.builder().redisUrl(TestRedis.url()).maxPayloadBytes(1024).build()) {
      JobQueue queue = small.queue(name, 2);
      long now = redisNowMs();
      for (int i = 0; i < 3; i++) {
        // the first in the set, so a pass has to step over them to reach the rest
        redis.zadd(key, 1_000 + i, i + "x".repeat(2_000));
      }
      redis.zadd(key, -1, "");
      redis.zadd(key, Double.NEGATIVE_INFINITY, "minus infinity");
      redis.zadd(key, 1e300, "far beyond 9999");
      redis.zadd(key, Double.POSITIVE_INFINITY, "infinity");
      for (int i = 0; i < 5; i++) {
        redis.zadd(key, now + i, "normal-" + i);
      }
      AdoptionReport report = queue.importSortedSet(
          SortedSetAdoption.from(key).scoreUnit(ScoreUnit.MILLISECONDS).moving(Mode.ALL).batch(2).build());
      assertThat(report.moved()).isEqualTo(7);
      assertThat(report.rejected()).isEqualTo(5);
      assertThat(report.firstRejection()).contains("maxPayloadBytes").contains("stays in the source");
      assertThat(report.remaining()).isEqualTo(5);
      assertThat(redis.zrange(key, 0, -1)).containsExactlyInAnyOrder(
          "0" + "x".repeat(2_000), "1" + "x".repeat(2_000), "2" + "x".repeat(2_000), "far beyond 9999", "infinity");
      JobInfo empty = queue.get("sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855").orElseThrow();
      assertThat(empty.payload()).isEmpty();
      assertThat(empty.runAt()).isEqualTo(Instant.EPOCH);
    }
  }

  @Test
  void aMemberWhoseIdIsRunningWaitsInTheSourceAndOneWhoseIdIsScheduledMerges() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("adopt-sameid"), 2);
    String key = "legacy:" + queue.name();
    SortedSetAdoption options =
        SortedSetAdoption.from(key).scoreUnit(ScoreUnit.MILLISECONDS).jobIdFromJsonField("orderId").moving(Mode.ALL).build();
    long now = redisNowMs();
    redis.zadd(key, now - 5, "{\"orderId\":\"o-1\",\"step\":1}");
    redis.zadd(key, now + 60_000, "{\"orderId\":\"o-2\",\"step\":1}");
    redis.zadd(key, now + 60_000, "not json at all");
    assertThat(queue.importSortedSet(options).moved()).isEqualTo(3);
    List<LeasedJob> held = queue.pull().claim(10, LEASE);
    assertThat(held).extracting(LeasedJob::id).containsExactly("o-1");

    redis.zadd(key, now - 1, "{\"orderId\":\"o-1\",\"step\":2}");
    redis.zadd(key, now + 1_000, "{\"orderId\":\"o-2\",\"step\":2}");
    AdoptionReport second = queue.importSortedSet(options);
    assertThat(second.heldBack()).as("o-1 is running").isEqualTo(1);
    assertThat(second.merged()).as("o-2 is scheduled: the first stays").isEqualTo(1);
    assertThat(second.hashedIds()).isZero();
    assertThat(redis.zrange(key, 0, -1)).containsExactly("{\"orderId\":\"o-1\",\"step\":2}");
    assertThat(queue.get("o-2").orElseThrow().payload())
        .isEqualTo("{\"orderId\":\"o-2\",\"step\":1}".getBytes(StandardCharsets.UTF_8));
    assertThat(queue.get("sha256:" + sha256("not json at all"))).isPresent();

    queue.pull().ack(held.get(0));
    AdoptionReport third = queue.importSortedSet(options);
    assertThat(third.moved()).as("o-1's second member, now that the first is done").isEqualTo(1);
    assertThat(redis.exists(key)).isZero();
    assertThat(queue.get("o-1").orElseThrow().payload())
        .isEqualTo("{\"orderId\":\"o-1\",\"step\":2}".getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void aMemberWrittenAgainWithANewScoreAfterItMovedGivesItsJobThatTimeAsZaddWouldHaveGivenTheMember() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("adopt-rescore"), 2);
    String key = "legacy:" + queue.name();
    SortedSetAdoption options =
        SortedSetAdoption.from(key).scoreUnit(ScoreUnit.MILLISECONDS).moving(Mode.ALL).build();
    long now = redisNowMs();
    redis.zadd(key, now + 60_000, "order-1");
    assertThat(queue.importSortedSet(options).moved()).isEqualTo(1);
    assertThat(runAt(queue, "order-1")).isEqualTo(now + 60_000);

    // The producer postpones it the way it always did: ZADD of the same member with a new score.
    redis.zadd(key, now + 3_600_000, "order-1");
    AdoptionReport postponed = queue.importSortedSet(options);
    assertThat(postponed.merged()).isEqualTo(1);
    assertThat(redis.exists(key)).isZero();
    assertThat(runAt(queue, "order-1")).as("the later time, else the job runs before the producer wants it")
        .isEqualTo(now + 3_600_000);
    assertThat(queue.pull().claim(10, LEASE)).isEmpty();

    // And brings it forward: it is due at once, and a claim gets it.
    redis.zadd(key, now - 1, "order-1");
    assertThat(queue.importSortedSet(options).merged()).isEqualTo(1);
    assertThat(runAt(queue, "order-1")).isEqualTo(now - 1);
    assertThat(queue.pull().claim(10, LEASE)).extracting(LeasedJob::payloadAsString).containsExactly("order-1");
    assertThat(queue.admin().stats().scheduled()).isZero();
  }

  @Test
  void producersRewritingScoresWhileTheBridgeMovesThemLeaveEachJobAtTheLastScoreWritten() throws Exception {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("adopt-rescore-race"), 4);
    String key = "legacy:" + queue.name();
    long now = redisNowMs();
    int members = 200;
    int rewrites = 20;
    Map<String, Long> last = new ConcurrentHashMap<>();
    try (SortedSetBridge bridge = queue.adopt(SortedSetAdoption.from(key).scoreUnit(ScoreUnit.MILLISECONDS)
        .moving(Mode.ALL).batch(7).pollInterval(Duration.ofMillis(10)).build())) {
      ExecutorService producers = Executors.newFixedThreadPool(2);
      try {
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
          int first = t;
          done.add(producers.submit(() -> withRedis(r -> {
            for (int round = 0; round < rewrites; round++) {
              for (int i = first; i < members; i += 2) {
                long due = now + 3_600_000 + round * 1_000L + i;
                r.zadd(key, due, "m-" + i);
                last.put("m-" + i, due);
              }
            }
          })));
        }
        for (Future<?> f : done) {
          f.get(60, TimeUnit.SECONDS);
        }
      } finally {
        producers.shutdownNow();
      }
      await().atMost(Duration.ofSeconds(30)).until(() -> redis.exists(key) == 0);
    }
    assertThat(queue.admin().stats().scheduled()).isEqualTo(members);
    Map<String, Long> stale = new TreeMap<>();
    last.forEach((member, due) -> {
      long at = runAt(queue, member);
      if (at != due) {
        stale.put(member, at - due);
      }
    });
    assertThat(stale).as("jobs left at an earlier score than their member's last one (ms off)").isEmpty();
  }

  @Test
  void aMemberWhoseIdWaitsForARetryWaitsInTheSourceSinceTheFirstWasTakenAlready() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("adopt-retrying"), 2);
    String key = "legacy:" + queue.name();
    SortedSetAdoption options =
        SortedSetAdoption.from(key).scoreUnit(ScoreUnit.MILLISECONDS).jobIdFromJsonField("orderId").moving(Mode.ALL).build();
    long now = redisNowMs();
    redis.zadd(key, now - 5, "{\"orderId\":\"o-1\",\"step\":1}");
    assertThat(queue.importSortedSet(options).moved()).isEqualTo(1);
    List<LeasedJob> held = queue.pull().claim(10, LEASE);
    assertThat(held).extracting(LeasedJob::id).containsExactly("o-1");
    assertThat(queue.pull().nack(held.get(0), Duration.ofMinutes(1), "failed once")).isEqualTo(JobState.SCHEDULED);

    // Step 2 is a new event: merging it into the retry of step 1 would drop it.
    redis.zadd(key, now - 1, "{\"orderId\":\"o-1\",\"step\":2}");
    AdoptionReport second = queue.importSortedSet(options);
    assertThat(second.merged()).isZero();
    assertThat(second.heldBack()).isEqualTo(1);
    assertThat(redis.zrange(key, 0, -1)).containsExactly("{\"orderId\":\"o-1\",\"step\":2}");

    assertThat(queue.cancel("o-1")).isTrue();
    assertThat(queue.importSortedSet(options).moved()).isEqualTo(1);
    assertThat(queue.get("o-1").orElseThrow().payload())
        .isEqualTo("{\"orderId\":\"o-1\",\"step\":2}".getBytes(StandardCharsets.UTF_8));
  }

  private static long runAt(JobQueue queue, String member) {
    return queue.get("sha256:" + sha256(member)).orElseThrow().runAt().toEpochMilli();
  }

  private static long redisNowMs() {
    List<String> time = redis.time();
    return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
  }

  static String sha256(String member) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(member.getBytes(StandardCharsets.UTF_8)));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static void pause(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private interface RedisWork {
    void run(RedisCommands<String, String> redis);
  }

  /** Each producer or old consumer on its own connection, as separate programs would be. */
  private static void withRedis(RedisWork work) {
    try (StatefulRedisConnection<String, String> c = redisClient.connect()) {
      work.run(c.sync());
    }
  }
}
