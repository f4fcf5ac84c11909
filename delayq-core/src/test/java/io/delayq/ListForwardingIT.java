package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayq.embedded.RedisServerProcess;
import io.delayq.internal.Keys;
import io.delayq.testing.TestRedis;
import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Forwarding due jobs to a Redis list on a single Redis: the atomic mode. */
class ListForwardingIT {
  private static Delayq delayq;
  private static RedisClient raw;
  private static StatefulRedisConnection<String, String> connection;
  private static RedisCommands<String, String> redis;

  @BeforeAll
  static void connect() {
    delayq = Delayq.connect(TestRedis.url());
    raw = RedisClient.create(TestRedis.url());
    connection = raw.connect();
    redis = connection.sync();
  }

  @AfterAll
  static void close() {
    if (connection != null) {
      connection.close();
    }
    if (raw != null) {
      raw.shutdown();
    }
    if (delayq != null) {
      delayq.close();
    }
  }

  private static String uniqueList(String purpose) {
    return TestRedis.uniqueQueue("list-" + purpose);
  }

  @Test
  void tenThousandJobsWithMixedDueTimesEachReachTheListOnceAndNoneEarly() throws Exception {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("fwd-10k"), 4);
    String list = uniqueList("10k");
    int total = 10_000;
    Random random = new Random(7);
    List<JobRequest> requests = new ArrayList<>(total);
    for (int i = 0; i < total; i++) {
      requests.add(JobRequest.of("job-" + i).withId("job-" + i).withDelay(Duration.ofMillis(random.nextInt(4_000))));
    }
    // The consumer pops and reads the server's clock in one script, waiting at the list all along:
    // a job pushed before its due time would be popped before it.
    List<String[]> pops = new CopyOnWriteArrayList<>();
    AtomicBoolean stop = new AtomicBoolean();
    Thread consumer = new Thread(() -> {
      try (StatefulRedisConnection<String, String> c = raw.connect()) {
        String pop = "local v = redis.call('RPOP', KEYS[1]) if not v then return false end "
            + "local t = redis.call('TIME') return {v, tostring(t[1] * 1000 + math.floor(t[2] / 1000))}";
        while (!stop.get()) {
          List<String> got = c.sync().eval(pop, ScriptOutputType.MULTI, list);
          if (got == null || got.isEmpty() || got.get(0) == null) {
            java.util.concurrent.locks.LockSupport.parkNanos(200_000);
            continue;
          }
          pops.add(new String[] {got.get(0), got.get(1)});
        }
      }
    }, "test-consumer");
    consumer.start();
    Map<String, Long> dueAt = new HashMap<>();
    try (Forwarder forwarder = queue.forwardToList(ListForwarding.toList(list).build())) {
      assertThat(forwarder.target()).isEqualTo("redis-list:" + list + " (atomic, raw)");
      // Scheduled while the forwarder runs, so that most jobs come due under its eyes.
      for (ScheduledJob job : queue.scheduleAll(requests)) {
        dueAt.put(job.id(), job.runAt().toEpochMilli());
      }
      await().atMost(Duration.ofSeconds(60)).until(() -> pops.size() >= total);
      assertThat(forwarder.status().forwarded()).isEqualTo(total);
      assertThat(forwarder.status().state()).isEqualTo(ForwarderStatus.State.RUNNING);
      assertThat(forwarder.status().inFlight()).isZero();
    } finally {
      stop.set(true);
      consumer.join();
    }
    Map<String, Integer> seen = new HashMap<>();
    List<String> early = new ArrayList<>();
    long firstDue = dueAt.values().stream().mapToLong(Long::longValue).min().orElseThrow();
    long lateAfterStart = 0;
    for (String[] popped : pops) {
      seen.merge(popped[0], 1, Integer::sum);
      long at = Long.parseLong(popped[1]);
      long due = dueAt.get(popped[0]);
      if (at < due) {
        early.add(popped[0] + " popped at " + at + ", due " + due);
      }
      if (due > firstDue + 1_000) {
        lateAfterStart++;
      }
    }
    assertThat(seen).hasSize(total);
    assertThat(seen.values()).allSatisfy(n -> assertThat(n).isEqualTo(1));
    assertThat(early).isEmpty();
    assertThat(lateAfterStart).as("jobs that came due while the forwarder ran").isGreaterThan(total / 2);
    assertThat(redis.llen(list)).isZero();
    QueueStats stats = queue.admin().stats();
    assertThat(stats.scheduled()).isZero();
    assertThat(stats.active()).isZero();
    assertThat(stats.dead()).isZero();
    for (int p = 0; p < queue.partitions(); p++) {
      Keys.Partition keys = Keys.partition(queue.name(), p);
      assertThat(redis.exists(new String(keys.jobs(), StandardCharsets.UTF_8))).as("jobs hash of %s", p).isZero();
    }
  }

  /**
   * Every state between two script calls is seen by a snapshot script: the jobs in the schedule
   * plus the jobs in the list always add up to the total, and records exist exactly for the
   * scheduled ones. The forwarder's connection is killed twice on the way; the sum still holds,
   * and the list ends with every job once.
   */
  @Test
  void theScheduleAndTheListAlwaysHoldEveryJobOnceEvenWhenTheForwardersConnectionIsKilled() throws Exception {
    try (RedisServerProcess own = RedisServerProcess.builder().start();
        Delayq client = Delayq.builder().redisUrl(own.uri()).commandTimeout(Duration.ofSeconds(2)).build()) {
      RedisClient ownRaw = RedisClient.create(own.uri());
      try (StatefulRedisConnection<String, String> c = ownRaw.connect()) {
        JobQueue queue = client.queue("conserved", 2);
        String list = "execute_queue";
        int total = 5_000;
        List<JobRequest> requests = new ArrayList<>(total);
        for (int i = 0; i < total; i++) {
          requests.add(JobRequest.of("p" + i).withId("j" + i).withDelay(Duration.ofMillis(i % 2_500)));
        }
        queue.scheduleAll(requests);
        List<String> keys = new ArrayList<>();
        for (int p = 0; p < 2; p++) {
          Keys.Partition k = Keys.partition(queue.name(), p);
          keys.add(new String(k.scheduled(), StandardCharsets.UTF_8));
          keys.add(new String(k.active(), StandardCharsets.UTF_8));
          keys.add(new String(k.jobs(), StandardCharsets.UTF_8));
        }
        keys.add(list);
        String snapshot = "local s, r = 0, 0 for i = 1, #KEYS - 1, 3 do "
            + "s = s + redis.call('ZCARD', KEYS[i]) + redis.call('ZCARD', KEYS[i + 1]) "
            + "r = r + redis.call('HLEN', KEYS[i + 2]) end "
            + "return {s, r, redis.call('LLEN', KEYS[#KEYS])}";
        List<String> broken = new CopyOnWriteArrayList<>();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Long> snapshots = new AtomicReference<>(0L);
        Thread checker = new Thread(() -> {
          try (StatefulRedisConnection<String, String> cc = ownRaw.connect()) {
            while (!stop.get()) {
              List<Long> n = cc.sync().eval(snapshot, ScriptOutputType.MULTI, keys.toArray(String[]::new));
              if (n.get(0) + n.get(2) != total || !n.get(0).equals(n.get(1))) {
                broken.add("held " + n.get(0) + ", records " + n.get(1) + ", listed " + n.get(2));
              }
              snapshots.updateAndGet(x -> x + 1);
            }
          }
        }, "test-checker");
        checker.start();
        try (Forwarder forwarder =
            queue.forwardToList(ListForwarding.toList(list).batch(20).build())) {
          for (int kill = 0; kill < 2; kill++) {
            long target = (kill + 1) * total / 3;
            await().atMost(Duration.ofSeconds(30)).until(() -> c.sync().llen(list) >= target);
            assertThat(killConnectionsNamed(c, "delayq-worker")).as("forwarder connections killed").isPositive();
          }
          await().atMost(Duration.ofSeconds(60)).until(() -> c.sync().llen(list) == total);
        } finally {
          stop.set(true);
          checker.join();
        }
        assertThat(snapshots.get()).isGreaterThan(10);
        assertThat(broken).isEmpty();
        List<String> listed = c.sync().lrange(list, 0, -1);
        assertThat(listed).hasSize(total).doesNotHaveDuplicates();
        assertThat(queue.admin().stats().scheduled()).isZero();
      } finally {
        ownRaw.shutdown();
      }
    }
  }

  @Test
  void largeBinaryEnvelopesAreForwardedInShortScriptCallsThatLeaveRedisFreeForOthers() throws Exception {
    // why: its own server, since the attack (before the fix) kept Redis busy for minutes
    try (RedisServerProcess own = RedisServerProcess.builder().start();
        Delayq client = Delayq.builder().redisUrl(own.uri()).build()) {
      RedisClient ownRaw = RedisClient.create(own.uri());
      try (StatefulRedisConnection<String, String> c = ownRaw.connect()) {
        c.sync().configSet("slowlog-log-slower-than", "1000000");
        c.sync().slowlogReset();
        JobQueue queue = client.queue("big-binary", 1);
        Random random = new Random(7);
        Map<String, byte[]> payloads = new HashMap<>();
        for (int i = 0; i < 40; i++) {
          byte[] payload = new byte[512 * 1024];
          random.nextBytes(payload);
          payloads.put("b" + i, payload);
          queue.schedule(JobRequest.of(payload).withId("b" + i).withDelay(Duration.ZERO));
        }
        try (Forwarder forwarder = queue.forwardToList(
            ListForwarding.toList("out").format(ListForwarding.Format.ENVELOPE).batch(100).build())) {
          await().atMost(Duration.ofSeconds(60)).until(() -> forwarder.status().forwarded() == 40);
        }
        List<String> listed = c.sync().lrange("out", 0, -1);
        assertThat(listed).hasSize(40);
        for (String element : listed) {
          JsonNode envelope = new ObjectMapper().readTree(element);
          assertThat(Base64.getDecoder().decode(envelope.get("payloadBase64").asText()))
              .isEqualTo(payloads.get(envelope.get("id").asText()));
        }
        assertThat(c.sync().slowlogGet(10)).as("commands that kept Redis busy for over a second").isEmpty();
      } finally {
        ownRaw.shutdown();
      }
    }
  }

  private static int killConnectionsNamed(StatefulRedisConnection<String, String> c, String name) {
    int killed = 0;
    for (String line : c.sync().clientList().split("\n")) {
      if (line.contains(" name=" + name + " ")) {
        String id = line.substring(line.indexOf("id=") + 3, line.indexOf(' '));
        killed += c.sync().clientKill(io.lettuce.core.KillArgs.Builder.id(Long.parseLong(id))).intValue();
      }
    }
    return killed;
  }

  /** A consumer written the way existing code reads such a list, with nothing delayq in it. */
  @Test
  void aPlainBrpopConsumerGetsEveryPayloadByteForByteEarliestDueFirst() throws Exception {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("fwd-raw"));
    String list = uniqueList("raw");
    List<byte[]> payloads = List.of(
        "plain text".getBytes(StandardCharsets.UTF_8),
        "{\"order\":42}".getBytes(StandardCharsets.UTF_8),
        new byte[] {0, (byte) 0xff, (byte) 0xfe, 10, '"', '\\', (byte) 0xc3},
        "ünïcödé ✓".getBytes(StandardCharsets.UTF_8),
        new byte[0]);
    Instant base = Instant.now().plusMillis(500);
    // Scheduled latest first: the list must still hand them out earliest due first.
    for (int i = payloads.size() - 1; i >= 0; i--) {
      queue.schedule(JobRequest.of(payloads.get(i)).withId("raw-" + i).withRunAt(base.plusMillis(20L * i)));
    }
    queue.schedule(JobRequest.ofJson("[1,2,3]").withId("raw-json").withRunAt(base.plusMillis(200)));
    List<byte[]> received = new ArrayList<>();
    try (Forwarder forwarder = queue.forwardToList(ListForwarding.toList(list).build());
        StatefulRedisConnection<byte[], byte[]> consumer = raw.connect(ByteArrayCodec.INSTANCE)) {
      while (received.size() < payloads.size() + 1) {
        KeyValue<byte[], byte[]> popped = consumer.sync().brpop(10, list.getBytes(StandardCharsets.UTF_8));
        assertThat(popped).as("popped within 10 s").isNotNull();
        received.add(popped.getValue());
      }
    }
    for (int i = 0; i < payloads.size(); i++) {
      assertThat(received.get(i)).as("payload %s", i).isEqualTo(payloads.get(i));
    }
    assertThat(new String(received.get(payloads.size()), StandardCharsets.UTF_8)).isEqualTo("[1,2,3]");
  }

  @Test
  void theEnvelopeCarriesIdAttemptDueTimeAndThePayloadAsJsonTextOrBase64() throws Exception {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("fwd-env"));
    String list = uniqueList("env");
    byte[] binary = {(byte) 0xff, 0, 'a', (byte) 0xc3, (byte) 0x28};
    String tricky = "line\nbreak \"quoted\" back\\slash tab\t del\u007f ✓ \uD83D\uDE00";
    // A job that failed once goes out on its second attempt.
    JobQueue retried = queue;
    retried.schedule(JobRequest.of("again").withId("env-retried"));
    await().atMost(Duration.ofSeconds(5)).until(() -> {
      List<LeasedJob> got = retried.pull().claim(10, Duration.ofSeconds(30));
      for (LeasedJob job : got) {
        if (job.id().equals("env-retried")) {
          retried.pull().nack(job, Duration.ZERO, "first try fails");
          return true;
        }
        retried.pull().release(job);
      }
      return false;
    });
    Map<String, ScheduledJob> scheduled = new HashMap<>();
    for (ScheduledJob job : queue.scheduleAll(List.of(
        JobRequest.ofJson("{\"order\":42,\"items\":[1,2]}").withId("env-json"),
        JobRequest.of(tricky).withId("env-text \"quoted\" ✓"),
        JobRequest.of(binary).withId("env-binary"),
        JobRequest.of(new byte[0]).withId("env-empty")))) {
      scheduled.put(job.id(), job);
    }
    ObjectMapper json = new ObjectMapper();
    Map<String, JsonNode> byId = new HashMap<>();
    try (Forwarder forwarder =
        queue.forwardToList(ListForwarding.toList(list).format(ListForwarding.Format.ENVELOPE).build())) {
      assertThat(forwarder.target()).endsWith("(atomic, envelope)");
      await().atMost(Duration.ofSeconds(10)).until(() -> redis.llen(list) == 5);
    }
    for (String element : redis.lrange(list, 0, -1)) {
      JsonNode node = json.readTree(element);
      byId.put(node.get("id").asText(), node);
    }
    assertThat(byId).containsOnlyKeys("env-json", "env-text \"quoted\" ✓", "env-binary", "env-empty", "env-retried");

    JsonNode object = byId.get("env-json");
    assertThat(fieldNames(object)).containsExactly("id", "attempt", "dueAt", "payload");
    assertThat(object.get("attempt").asInt()).isEqualTo(1);
    assertThat(object.get("dueAt").asLong()).isEqualTo(scheduled.get("env-json").runAt().toEpochMilli());
    assertThat(object.get("payload").isObject()).isTrue();
    assertThat(object.get("payload").get("order").asInt()).isEqualTo(42);
    assertThat(object.get("payload").get("items").get(1).asInt()).isEqualTo(2);

    JsonNode text = byId.get("env-text \"quoted\" ✓");
    assertThat(text.get("payload").isTextual()).isTrue();
    assertThat(text.get("payload").asText()).isEqualTo(tricky);

    JsonNode bytes = byId.get("env-binary");
    assertThat(fieldNames(bytes)).containsExactly("id", "attempt", "dueAt", "payloadBase64");
    assertThat(Base64.getDecoder().decode(bytes.get("payloadBase64").asText())).isEqualTo(binary);

    assertThat(byId.get("env-empty").get("payload").asText()).isEmpty();
    assertThat(byId.get("env-retried").get("attempt").asInt()).isEqualTo(2);
    assertThat(byId.get("env-retried").get("payload").asText()).isEqualTo("again");
  }

  @Test
  void theTwoStepModeBuildsTheSameEnvelopeBytesAsTheScript() {
    String[] lists = {uniqueList("env-atomic"), uniqueList("env-two-step")};
    byte[] binary = {(byte) 0xed, (byte) 0xa0, (byte) 0x80, 'x', (byte) 0xf4, (byte) 0x90, (byte) 0x80, (byte) 0x80};
    Instant at = Instant.ofEpochMilli(System.currentTimeMillis() - 1000);
    for (int mode = 0; mode < 2; mode++) {
      JobQueue queue = delayq.queue(TestRedis.uniqueQueue("fwd-same"));
      queue.scheduleAll(List.of(
          JobRequest.ofJson("{\"a\":[true,null]}").withId("same-1").withRunAt(at),
          JobRequest.of("q\"\\\n\u0001\u007f ✓ \uD83D\uDE00").withId("same-2").withRunAt(at.plusMillis(1)),
          JobRequest.of(binary).withId("same-3").withRunAt(at.plusMillis(2))));
      ListForwarding.Builder options = ListForwarding.toList(lists[mode]).format(ListForwarding.Format.ENVELOPE);
      try (Forwarder forwarder = queue.forwardToList(mode == 0 ? options.build() : options.twoStep().build())) {
        assertThat(forwarder.target()).contains(mode == 0 ? "(atomic" : "(two-step");
        String list = lists[mode];
        await().atMost(Duration.ofSeconds(10)).until(() -> redis.llen(list) == 3);
      }
    }
    List<String> atomic = redis.lrange(lists[0], 0, -1);
    List<String> twoStep = redis.lrange(lists[1], 0, -1);
    assertThat(twoStep).isEqualTo(atomic);
    assertThat(atomic.get(0)).contains("\"payloadBase64\":\"" + Base64.getEncoder().encodeToString(binary) + "\"");
  }

  @Test
  void aKeyOfAnotherTypeKeepsEveryJobAndIsReportedUntilItIsFixed() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("fwd-wrongtype"), 2);
    String list = uniqueList("wrongtype");
    redis.set(list, "not a list");
    for (int i = 0; i < 50; i++) {
      queue.schedule(JobRequest.of("w" + i).withId("w" + i));
    }
    ch.qos.logback.classic.Logger logger =
        (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger("io.delayq.internal");
    var appender = new ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent>();
    appender.start();
    logger.addAppender(appender);
    try (Forwarder forwarder = queue.forwardToList(ListForwarding.toList(list).build())) {
      await().atMost(Duration.ofSeconds(5)).until(() -> forwarder.status().state() == ForwarderStatus.State.MISCONFIGURED);
      ForwarderStatus status = forwarder.status();
      assertThat(status.lastError()).contains(list).contains("not a list").contains("string");
      assertThat(status.lastErrorAt()).isNotNull();
      assertThat(status.isHealthy()).isFalse();
      // Kept, not buried, not leased, through several backoff rounds.
      await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3)).until(() -> {
        QueueStats s = queue.admin().stats();
        return s.scheduled() == 50 && s.dead() == 0 && s.active() == 0
            && forwarder.status().state() == ForwarderStatus.State.MISCONFIGURED;
      });
      assertThat(redis.get(list)).isEqualTo("not a list");
      // One warning for the whole spell, however many rounds it lasted.
      assertThat(appender.list.stream()
              .filter(e -> e.getLevel().isGreaterOrEqual(ch.qos.logback.classic.Level.WARN))
              .filter(e -> e.getFormattedMessage().contains(queue.name()))
              .map(ch.qos.logback.classic.spi.ILoggingEvent::getFormattedMessage))
          .hasSize(1)
          .allSatisfy(m -> assertThat(m).contains("cannot forward").contains("string"));

      redis.del(list);
      await().atMost(Duration.ofSeconds(15)).until(() -> redis.llen(list) == 50);
      await().atMost(Duration.ofSeconds(2)).until(() -> forwarder.status().state() == ForwarderStatus.State.RUNNING);
      assertThat(forwarder.status().forwarded()).isEqualTo(50);
      assertThat(queue.admin().stats().scheduled()).isZero();
    } finally {
      logger.detachAppender(appender);
    }
  }

  @Test
  void aPausedQueueForwardsNothingUntilResumed() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("fwd-pause"));
    String list = uniqueList("pause");
    queue.admin().pause();
    try (Forwarder forwarder = queue.forwardToList(ListForwarding.toList(list).sweepInterval(Duration.ofMillis(100)).build())) {
      queue.schedule(JobRequest.of("paused").withId("paused"));
      await().during(Duration.ofMillis(1_500)).atMost(Duration.ofSeconds(3)).until(() -> redis.llen(list) == 0);
      assertThat(queue.admin().stats().scheduled()).isEqualTo(1);
      queue.admin().resume();
      await().atMost(Duration.ofSeconds(3)).until(() -> redis.llen(list) == 1);
    }
  }

  /** The sweep is a minute: only the wake message can bring the job within the test's bound. */
  @Test
  void anEarlierJobWakesTheForwarderLongBeforeItsSweep() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("fwd-wake"), 2);
    String list = uniqueList("wake");
    queue.schedule(JobRequest.of("late").withId("late").withDelay(Duration.ofMinutes(10)));
    try (Forwarder forwarder = queue.forwardToList(ListForwarding.toList(list).sweepInterval(Duration.ofMinutes(1)).build())) {
      await().atMost(Duration.ofSeconds(5)).until(() -> forwarder.status().state() == ForwarderStatus.State.RUNNING);
      await().atMost(Duration.ofSeconds(5))
          .until(() -> redis.pubsubNumsub(Keys.wakeChannel(queue.name())).get(Keys.wakeChannel(queue.name())) >= 1);
      for (int i = 0; i < 3; i++) {
        ScheduledJob job = queue.schedule(JobRequest.of("soon-" + i).withId("soon-" + i).withDelay(Duration.ofMillis(300)));
        long expected = i + 1;
        await().atMost(Duration.ofSeconds(5)).until(() -> redis.llen(list) == expected);
        Duration lateness = Duration.between(job.runAt(), Instant.now());
        assertThat(lateness).as("lateness of soon-%s", i).isLessThan(Duration.ofMillis(700));
      }
      assertThat(queue.admin().stats().scheduled()).isEqualTo(1);
    }
  }

  /** A KEEP job's id is remembered once forwarded, as after an ack: retrying its schedule adds nothing. */
  @Test
  void aForwardedKeepJobIsRememberedForTheIdempotencyWindow() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("fwd-keep"));
    String list = uniqueList("keep");
    JobRequest once = JobRequest.of("once").withId("keep-1").withOnDuplicate(DuplicatePolicy.KEEP);
    queue.schedule(once);
    try (Forwarder forwarder = queue.forwardToList(ListForwarding.toList(list).build())) {
      await().atMost(Duration.ofSeconds(5)).until(() -> redis.llen(list) == 1);
      queue.schedule(once);
      await().during(Duration.ofMillis(1_200)).atMost(Duration.ofSeconds(3)).until(() -> redis.llen(list) == 1);
    }
    assertThat(queue.admin().stats().scheduled()).isZero();
    assertThat(queue.get("keep-1")).isEmpty();
  }

  @Test
  void closingStopsForwardingAndLeavesLaterJobsInTheQueue() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("fwd-close"));
    String list = uniqueList("close");
    Forwarder forwarder = queue.forwardToList(ListForwarding.toList(list).pushAt(ListForwarding.End.RIGHT).build());
    queue.schedule(JobRequest.of("first").withId("first"));
    queue.schedule(JobRequest.of("second").withId("second").withDelay(Duration.ofMillis(50)));
    await().atMost(Duration.ofSeconds(5)).until(() -> redis.llen(list) == 2);
    assertThat(redis.lpop(list)).as("RPUSH: earliest due at the left").isEqualTo("first");
    forwarder.close();
    forwarder.close();
    assertThat(forwarder.status().state()).isEqualTo(ForwarderStatus.State.CLOSED);
    assertThat(forwarder.status().forwarded()).isEqualTo(2);
    queue.schedule(JobRequest.of("after").withId("after"));
    await().during(Duration.ofMillis(1_200)).atMost(Duration.ofSeconds(3)).until(() -> redis.llen(list) == 1);
    assertThat(queue.admin().stats().scheduled()).isEqualTo(1);
  }

  @Test
  void closingTheClientClosesItsForwarders() {
    Forwarder forwarder;
    try (Delayq client = Delayq.connect(TestRedis.url())) {
      forwarder = client.queue(TestRedis.uniqueQueue("fwd-client-close"))
          .forwardToList(ListForwarding.toList(uniqueList("client-close")).build());
      await().atMost(Duration.ofSeconds(5)).until(() -> forwarder.status().state() == ForwarderStatus.State.RUNNING);
    }
    assertThat(forwarder.status().state()).isEqualTo(ForwarderStatus.State.CLOSED);
  }

  /** Records as other versions write them, put in place by hand: each is read as a claim reads it. */
  @Test
  void everyRecordVersionIsUnwrappedAndAnUnreadableOneGoesDeadWithItsReason() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("fwd-records"));
    String list = uniqueList("records");
    Keys.Partition keys = Keys.partition(queue.name(), 0);
    String scheduled = new String(keys.scheduled(), StandardCharsets.UTF_8);
    String jobs = new String(keys.jobs(), StandardCharsets.UTF_8);
    Map<String, String> records = Map.of(
        "v1", "1|5|1700000000000|from 0.1",
        "v2", "2|k|5|1700000000000|kept|with|bars",
        "v3", "3|r|5|1700000000000j|traceparent=00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01|{\"traced\":true}",
        "bad", "9|what is this");
    long past = System.currentTimeMillis() - 1_000;
    records.forEach((id, record) -> {
      redis.hset(jobs, id, record);
      redis.zadd(scheduled, past, id);
    });
    try (Forwarder forwarder =
        queue.forwardToList(ListForwarding.toList(list).format(ListForwarding.Format.ENVELOPE).build())) {
      await().atMost(Duration.ofSeconds(5)).until(() -> redis.llen(list) == 3);
      await().atMost(Duration.ofSeconds(5)).until(() -> forwarder.status().deadLettered() == 1);
      assertThat(forwarder.status().forwarded()).isEqualTo(3);
    }
    assertThat(redis.lrange(list, 0, -1)).containsExactlyInAnyOrder(
        "{\"id\":\"v1\",\"attempt\":1,\"dueAt\":" + past + ",\"payload\":\"from 0.1\"}",
        "{\"id\":\"v2\",\"attempt\":1,\"dueAt\":" + past + ",\"payload\":\"kept|with|bars\"}",
        "{\"id\":\"v3\",\"attempt\":1,\"dueAt\":" + past + ",\"payload\":{\"traced\":true}}");
    assertThat(queue.admin().stats().dead()).isEqualTo(1);
    assertThat(redis.zscore(new String(keys.dead(), StandardCharsets.UTF_8), "bad")).isNotNull();
    assertThat(redis.zcard(scheduled)).isZero();
    assertThat(redis.hget(new String(Keys.partition(queue.name(), 0).all()[4], StandardCharsets.UTF_8), "bad"))
        .contains("cannot be decoded");
  }

  @Test
  void badListNamesAreRefusedNamingTheField() {
    assertThatThrownBy(() -> ListForwarding.toList(""))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("list")
        .hasMessageContaining("empty");
    assertThatThrownBy(() -> ListForwarding.toList(null)).isInstanceOf(InvalidRequestException.class);
    assertThatThrownBy(() -> ListForwarding.toList("x".repeat(513)))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("513 bytes")
        .hasMessageContaining("512");
    assertThatThrownBy(() -> ListForwarding.toList("a\nb"))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("U+000A");
    assertThatThrownBy(() -> ListForwarding.toList("ok").batch(0)).isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("batch");
    assertThatThrownBy(() -> delayq.queue("fwd-null").forwardToList(null))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("options");
    assertThat(ListForwarding.toList("x".repeat(512)).build().list()).hasSize(512);
  }

  @Test
  void aListNamedAsOneOfDelayqsOwnKeysIsRefusedBeforeItCanPauseOrBreakTheQueue() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("fwd-ownkey"), 1);
    String tag = Keys.partitionTag(queue.name(), 0);
    // Pushing to the paused key used to leave the queue paused for good; to attempts, break nacks.
    for (String own : List.of(tag + ":paused", tag + ":attempts", tag + ":done:a", tag + ":scheduled",
        Keys.settings(queue.name()), Keys.registry())) {
      assertThatThrownBy(() -> ListForwarding.toList(own), own)
          .isInstanceOfSatisfying(InvalidRequestException.class, e -> assertThat(e.field()).isEqualTo("list"))
          .hasMessageContaining("one of delayq's own keys");
    }
    queue.schedule(JobRequest.of("a").withId("a"));
    String ready = tag + ":ready";
    try (Forwarder forwarder = queue.forwardToList(ListForwarding.toList(ready).build())) {
      await().atMost(Duration.ofSeconds(10)).until(() -> forwarder.status().forwarded() == 1);
    }
    assertThat(redis.lrange(ready, 0, -1)).containsExactly("a");
    assertThat(queue.admin().stats().paused()).isFalse();
    redis.del(ready);
  }

  private static List<String> fieldNames(JsonNode node) {
    List<String> names = new ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }
}
