package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.delayq.internal.Heartbeats;
import io.delayq.internal.Keys;
import io.delayq.testing.TestRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Worker heartbeats on a real Redis: who is listed, with what, and when they drop out. The shared
 * Redis may hold other programs' heartbeats, so each test looks only at its own clients' ids.
 */
class HeartbeatIT {
  private static final Duration INTERVAL = Duration.ofMillis(200);
  private final List<Delayq> clients = new ArrayList<>();
  private RedisClient raw;
  private StatefulRedisConnection<String, String> redis;

  @BeforeEach
  void connect() {
    raw = RedisClient.create(TestRedis.url());
    redis = raw.connect();
  }

  @AfterEach
  void close() {
    clients.forEach(Delayq::close);
    redis.close();
    raw.shutdown();
  }

  private Delayq client() {
    Delayq delayq = Delayq.builder().redisUrl(TestRedis.url()).heartbeatInterval(INTERVAL).build();
    clients.add(delayq);
    return delayq;
  }

  private static Optional<WorkerProcess> listed(Delayq reader, Delayq client) {
    return reader.workerProcesses().stream().filter(p -> p.id().equals(client.processId())).findFirst();
  }

  private static WorkerOptions options(int concurrency) {
    return WorkerOptions.builder().concurrency(concurrency).shutdownTimeout(Duration.ofSeconds(5)).build();
  }

  @Test
  void twoClientsRunningWorkersAreListedWithTheirQueuesAndInFlightJobs() throws Exception {
    Delayq first = client();
    Delayq second = client();
    Delayq reader = client();
    String a = TestRedis.uniqueQueue("hb-a");
    String b = TestRedis.uniqueQueue("hb-b");
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch started = new CountDownLatch(1);
    first.queue(a).startWorkers(job -> {
      started.countDown();
      release.await();
    }, options(3));
    second.queue(b).startWorkers(job -> {}, options(2));
    second.queue(a).startWorkers(job -> {}, options(1));
    assertThat(reader.processId()).matches("[0-9a-f]{16}").isNotEqualTo(first.processId());
    assertThat(listed(reader, reader)).as("a client running no workers writes no heartbeat").isEmpty();

    await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
      assertThat(listed(reader, first)).get()
          .satisfies(p -> assertThat(p.queues()).containsExactly(new WorkerProcess.QueueWork(a, 3, 0)));
      assertThat(listed(reader, second)).get().satisfies(p -> assertThat(p.queues())
          .containsExactlyInAnyOrderElementsOf(List.of(new WorkerProcess.QueueWork(a, 1, 0), new WorkerProcess.QueueWork(b, 2, 0))));
    });
    WorkerProcess process = listed(reader, first).orElseThrow();
    assertThat(process.pid()).isEqualTo(ProcessHandle.current().pid());
    assertThat(process.host()).isNotBlank();
    assertThat(process.version()).isNotBlank();
    assertThat(process.lastSeen()).isAfterOrEqualTo(process.startedAt().minusSeconds(5))
        .isBefore(Instant.now().plusSeconds(5));

    // Scheduled through a third client, so that only the first one's worker (blocked) can hold it... or the second's.
    // The second client's queue-a worker may take it too; hold both queues' views to the first's pool.
    second.close();
    clients.remove(second);
    await().atMost(Duration.ofSeconds(2)).until(() -> listed(reader, second).isEmpty());
    reader.queue(a).schedule(JobRequest.of("blocks").withId("blocks"));
    assertThat(started.await(5, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
    await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(listed(reader, first)).get()
        .satisfies(p -> assertThat(p.queues()).containsExactly(new WorkerProcess.QueueWork(a, 3, 1))));
    release.countDown();
    await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(listed(reader, first)).get()
        .satisfies(p -> assertThat(p.queues()).containsExactly(new WorkerProcess.QueueWork(a, 3, 0))));
  }

  @Test
  void aClosedClientIsGoneAtOnceAndSoIsOneWhoseLastWorkersStopped() {
    Delayq closing = client();
    Delayq stopping = client();
    Delayq reader = client();
    closing.queue(TestRedis.uniqueQueue("hb-close")).startWorkers(job -> {}, options(1));
    Workers workers = stopping.queue(TestRedis.uniqueQueue("hb-stop")).startWorkers(job -> {}, options(1));
    await().atMost(Duration.ofSeconds(5)).until(() -> listed(reader, closing).isPresent() && listed(reader, stopping).isPresent());

    closing.close();
    workers.close();
    // At once: no heartbeat interval, let alone a TTL, has to pass.
    assertThat(listed(reader, closing)).isEmpty();
    await().atMost(Duration.ofMillis(150)).until(() -> listed(reader, stopping).isEmpty());
    assertThat(redis.sync().exists(Keys.workerProcess(closing.processId()), Keys.workerProcess(stopping.processId()))).isZero();
    assertThat(redis.sync().zscore(Keys.workersSeen(), closing.processId())).isNull();
  }

  @Test
  void processesThatStopHeartbeatingDropOutAfterTheTtlAndArePrunedFromTheSet() {
    Delayq reader = client();
    String queue = TestRedis.uniqueQueue("hb-many");
    List<Delayq> many = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      Delayq c = client();
      c.queue(queue).startWorkers(job -> {}, options(1));
      many.add(c);
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> many.stream().allMatch(c -> listed(reader, c).isPresent()));
    List<Delayq> crashed = many.subList(0, 15);
    crashed.forEach(c -> Heartbeats.stopWritingLikeACrash(c.queue(queue)));
    long stoppedAt = System.nanoTime();

    await().atMost(Duration.ofSeconds(5)).until(() -> crashed.stream().allMatch(c -> listed(reader, c).isEmpty()));
    // Gone only once three intervals passed, not at the next listing.
    assertThat(Duration.ofNanos(System.nanoTime() - stoppedAt)).isGreaterThanOrEqualTo(INTERVAL.multipliedBy(2));
    assertThat(many.subList(15, 20)).allMatch(c -> listed(reader, c).isPresent());
    // The live ones' heartbeats prune the dead ones' members: the set holds one member per live process.
    await().atMost(Duration.ofSeconds(2)).untilAsserted(() -> {
      for (Delayq c : crashed) {
        assertThat(redis.sync().zscore(Keys.workersSeen(), c.processId())).isNull();
        assertThat(redis.sync().exists(Keys.workerProcess(c.processId()))).isZero();
      }
    });
  }

  @Test
  void entriesOtherProgramsWroteThatDoNotParseAreSkipped() {
    Delayq worker = client();
    Delayq reader = client();
    worker.queue(TestRedis.uniqueQueue("hb-garbage")).startWorkers(job -> {}, options(1));
    String suffix = Long.toHexString(System.nanoTime());
    long expires = System.currentTimeMillis() + 60_000;
    var sync = redis.sync();
    sync.zadd(Keys.workersSeen(), expires, "garbage-string-" + suffix);
    sync.set(Keys.workerProcess("garbage-string-" + suffix), "not a hash", io.lettuce.core.SetArgs.Builder.px(60_000));
    sync.zadd(Keys.workersSeen(), expires, "garbage-hash-" + suffix);
    sync.hset(Keys.workerProcess("garbage-hash-" + suffix), java.util.Map.of("v", "1", "host", "h", "pid", "not-a-number"));
    sync.pexpire(Keys.workerProcess("garbage-hash-" + suffix), 60_000);
    sync.zadd(Keys.workersSeen(), expires, "garbage-missing-" + suffix);
    try {
      await().atMost(Duration.ofSeconds(5)).until(() -> listed(reader, worker).isPresent());
      assertThat(reader.workerProcesses()).extracting(WorkerProcess::id).noneMatch(id -> id.endsWith(suffix));
    } finally {
      sync.zrem(Keys.workersSeen(), "garbage-string-" + suffix, "garbage-hash-" + suffix, "garbage-missing-" + suffix);
      sync.del(Keys.workerProcess("garbage-string-" + suffix), Keys.workerProcess("garbage-hash-" + suffix));
    }
  }

  @Test
  void onRedis62TooAProcessIsListedWhileItWorksAndGoneWhenItCloses() {
    try (io.delayq.embedded.RedisServerProcess server = io.delayq.embedded.RedisServerProcess.builder().start()) {
      assertThat(server.version()).contains("v=6.2");
      Delayq worker = Delayq.builder().redisUrl(server.uri()).heartbeatInterval(INTERVAL).build();
      try (Delayq reader = Delayq.connect(server.uri())) {
        worker.queue("on-62").startWorkers(job -> {}, options(2));
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(reader.workerProcesses())
            .singleElement().satisfies(p -> {
              assertThat(p.id()).isEqualTo(worker.processId());
              assertThat(p.queues()).containsExactly(new WorkerProcess.QueueWork("on-62", 2, 0));
            }));
        worker.close();
        assertThat(reader.workerProcesses()).isEmpty();
      } finally {
        worker.close();
      }
    }
  }

  @Test
  void aHeartbeatIntervalBelow100MillisecondsIsRefused() {
    assertThatThrownBy(() -> Delayq.builder().heartbeatInterval(Duration.ofMillis(99)))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("heartbeatInterval").hasMessageContaining("100 ms");
  }
}
