package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.delayq.testing.TestRedis;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Workers and the pull API on a real Redis: delivery, retries, leases, dead letters, shutdown. */
class WorkersIT {
  private Delayq delayq;

  @BeforeEach
  void connect() {
    delayq = Delayq.connect(TestRedis.url());
  }

  @AfterEach
  void close() {
    delayq.close();
  }

  private static WorkerOptions.Builder fast() {
    return WorkerOptions.builder().backoff(Backoff.fixed(Duration.ofMillis(50))).shutdownTimeout(Duration.ofSeconds(5));
  }

  @Test
  void aDelayedJobRunsOnceAtItsTimeNotBefore() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("delayed"));
    Map<String, Instant> startedAt = new ConcurrentHashMap<>();
    AtomicInteger runs = new AtomicInteger();
    try (Workers workers = queue.startWorkers(job -> {
          runs.incrementAndGet();
          startedAt.put(job.id(), Instant.now());
        }, fast().build())) {
      ScheduledJob scheduled = queue.schedule(JobRequest.of("x").withId("soon").withDelay(Duration.ofMillis(700)));
      await().atMost(Duration.ofSeconds(5)).until(() -> startedAt.containsKey("soon"));
      assertThat(startedAt.get("soon")).isAfterOrEqualTo(scheduled.runAt());
      // Woken by the due time, not by the one-second sweep.
      assertThat(Duration.between(scheduled.runAt(), startedAt.get("soon"))).isLessThan(Duration.ofMillis(500));
    }
    assertThat(runs).hasValue(1);
    assertThat(queue.get("soon")).isEmpty();
    assertThat(queue.admin().stats()).extracting(QueueStats::scheduled, QueueStats::active).containsExactly(0L, 0L);
  }

  @Test
  void anEarlierJobWakesASleepingWorkerAtOnce() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("wake"));
    Map<String, Instant> startedAt = new ConcurrentHashMap<>();
    WorkerOptions options = fast().sweepInterval(Duration.ofSeconds(30)).build();
    try (Workers workers = queue.startWorkers(job -> startedAt.put(job.id(), Instant.now()), options)) {
      queue.schedule(JobRequest.of("late").withId("late").withDelay(Duration.ofHours(1)));
      // Let the worker find the far job and go to sleep until it (or until the 30 s sweep).
      await().atMost(Duration.ofSeconds(5)).until(() -> queue.admin().stats().scheduled() == 1);
      ScheduledJob early = queue.schedule(JobRequest.of("early").withId("early").withDelay(Duration.ofMillis(300)));
      await().atMost(Duration.ofSeconds(5)).until(() -> startedAt.containsKey("early"));
      assertThat(Duration.between(early.runAt(), startedAt.get("early"))).isLessThan(Duration.ofSeconds(2));
      assertThat(startedAt).doesNotContainKey("late");
    }
  }

  @Test
  void failingJobIsRetriedWithBackoffThenGoesDeadAndCanBeRequeued() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("retry"));
    List<Integer> attempts = new CopyOnWriteArrayList<>();
    List<Instant> times = new CopyOnWriteArrayList<>();
    AtomicInteger failUntil = new AtomicInteger(Integer.MAX_VALUE);
    WorkerOptions options =
        fast().backoff(new Backoff(Duration.ofMillis(200), Duration.ofSeconds(5), 2.0, 0.0)).build();
    try (Workers workers = queue.startWorkers(job -> {
          attempts.add(job.attempt());
          times.add(Instant.now());
          if (job.attempt() <= failUntil.get()) {
            throw new IllegalStateException("payment service down (attempt " + job.attempt() + ")");
          }
        }, options)) {
      queue.schedule(JobRequest.of("pay").withId("flaky").withMaxAttempts(3));
      await().atMost(Duration.ofSeconds(10)).until(() -> queue.admin().stats().dead() == 1);

      assertThat(attempts).containsExactly(1, 2, 3);
      // 200 ms after the first failure, 400 ms after the second.
      assertThat(Duration.between(times.get(0), times.get(1))).isGreaterThanOrEqualTo(Duration.ofMillis(190));
      assertThat(Duration.between(times.get(1), times.get(2))).isGreaterThanOrEqualTo(Duration.ofMillis(390));

      JobInfo dead = queue.get("flaky").orElseThrow();
      assertThat(dead.state()).isEqualTo(JobState.DEAD);
      assertThat(dead.attempts()).isEqualTo(3);
      assertThat(dead.lastError()).contains("IllegalStateException").contains("payment service down (attempt 3)");
      assertThat(queue.admin().deadJobs(10)).extracting(JobInfo::id).containsExactly("flaky");

      failUntil.set(0);
      assertThat(queue.admin().requeueDead("flaky")).isTrue();
      await().atMost(Duration.ofSeconds(5)).until(() -> queue.get("flaky").isEmpty());
      assertThat(attempts).containsExactly(1, 2, 3, 1);
      assertThat(queue.admin().stats().dead()).isZero();
    }
  }

  @Test
  void deadJobsCanBeDeletedAndAreCappedByCount() {
    try (Delayq capped = Delayq.builder().redisUrl(TestRedis.url()).deadLetterLimit(5).build()) {
      JobQueue queue = capped.queue(TestRedis.uniqueQueue("dead-cap"));
      for (int i = 0; i < 12; i++) {
        queue.schedule(JobRequest.of("x").withId("d" + i).withMaxAttempts(1));
      }
      for (LeasedJob job : queue.pull().claim(12, Duration.ofSeconds(30))) {
        assertThat(queue.pull().nack(job.id(), job.token(), null, "boom")).isEqualTo(JobState.DEAD);
      }
      QueueStats stats = queue.admin().stats();
      assertThat(stats.dead()).isEqualTo(5);
      List<JobInfo> dead = queue.admin().deadJobs(100);
      assertThat(dead).hasSize(5);
      String newest = dead.get(0).id();
      assertThat(queue.admin().deleteDead(newest)).isTrue();
      assertThat(queue.get(newest)).isEmpty();
      assertThat(queue.admin().stats().dead()).isEqualTo(4);
      // The trimmed ones are gone entirely, not left behind as records.
      long known = 0;
      for (int i = 0; i < 12; i++) {
        known += queue.get("d" + i).isPresent() ? 1 : 0;
      }
      assertThat(known).isEqualTo(4);
    }
  }

  @Test
  void leaseExpiryRedeliversAndTheStaleAckIsRefused() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("lease"));
    queue.schedule(JobRequest.of("x").withId("crashy"));
    // A worker claims and "dies": its client goes away without an ack.
    Delayq doomed = Delayq.connect(TestRedis.url());
    List<LeasedJob> claimed = doomed.queue(queue.name()).pull().claim(1, Duration.ofMillis(300));
    assertThat(claimed).hasSize(1);
    LeasedJob first = claimed.get(0);
    assertThat(first.attempt()).isEqualTo(1);
    // The dying worker's connections drop; its lease was not handed back, so it must run out.
    doomed.close();

    AtomicInteger secondAttempt = new AtomicInteger();
    CountDownLatch release = new CountDownLatch(1);
    try (Workers workers = queue.startWorkers(job -> {
          secondAttempt.set(job.attempt());
          release.await(5, TimeUnit.SECONDS);
        }, fast().build())) {
      await().atMost(Duration.ofSeconds(5)).until(() -> secondAttempt.get() == 2);
      // The dead worker's late ack must not finish the redelivered job.
      assertThatThrownBy(() -> queue.pull().ack("crashy", first.token()))
          .isInstanceOf(LeaseExpiredException.class)
          .hasMessageContaining("token " + first.token() + " no longer holds the job");
      assertThat(queue.get("crashy").orElseThrow().state()).isEqualTo(JobState.ACTIVE);
      release.countDown();
      await().atMost(Duration.ofSeconds(5)).until(() -> queue.get("crashy").isEmpty());
    }
  }

  @Test
  void ackAfterTheLeaseEndedIsRefusedEvenBeforeAnyoneRecoversIt() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("late-ack"));
    queue.schedule(JobRequest.of("x").withId("slow"));
    LeasedJob job = queue.pull().claim(1, Duration.ofMillis(200)).get(0);
    await().atMost(Duration.ofSeconds(5)).until(() -> queue.get("slow").orElseThrow().leaseUntil().isBefore(Instant.now().minusMillis(50)));
    assertThatThrownBy(() -> queue.pull().ack(job)).isInstanceOf(LeaseExpiredException.class);
    assertThatThrownBy(() -> job.extendLease(Duration.ofSeconds(5))).isInstanceOf(LeaseExpiredException.class);
    assertThatThrownBy(() -> queue.pull().nack(job.id(), job.token(), Duration.ZERO, "x")).isInstanceOf(LeaseExpiredException.class);
    List<LeasedJob> again = queue.pull().claim(1, Duration.ofSeconds(30));
    assertThat(again).extracting(LeasedJob::attempt).containsExactly(2);
  }

  @Test
  void longHandlersExtendTheirLease() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("extend"));
    queue.schedule(JobRequest.of("x").withId("long"));
    LeasedJob job = queue.pull().claim(1, Duration.ofMillis(400)).get(0);
    Instant extended = job.extendLease(Duration.ofSeconds(30));
    assertThat(extended).isAfter(Instant.now().plusSeconds(25));
    assertThat(job.leaseUntil()).isEqualTo(extended);
    // Past the original lease, nobody else can take it.
    await().during(Duration.ofMillis(600)).atMost(Duration.ofSeconds(2))
        .until(() -> queue.get("long").orElseThrow().leaseUntil().equals(extended));
    assertThat(queue.pull().claim(1, Duration.ofSeconds(1))).isEmpty();
    queue.pull().ack(job);
    assertThat(queue.get("long")).isEmpty();
  }

  @Test
  void pullApiClaimsAcksAndNacks() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("pull"), 3);
    for (int i = 0; i < 10; i++) {
      queue.schedule(JobRequest.of("p" + i).withId("j" + i));
    }
    queue.schedule(JobRequest.of("later").withId("later").withDelay(Duration.ofHours(1)));
    List<LeasedJob> first = queue.pull().claim(4, Duration.ofSeconds(30));
    List<LeasedJob> rest = queue.pull().claim(100, Duration.ofSeconds(30));
    assertThat(first).hasSize(4);
    assertThat(rest).hasSize(6);
    assertThat(queue.admin().stats()).extracting(QueueStats::active, QueueStats::scheduled, QueueStats::due)
        .containsExactly(10L, 1L, 0L);

    LeasedJob failed = first.get(0);
    assertThat(queue.pull().nack(failed.id(), failed.token(), Duration.ZERO, "try again")).isEqualTo(JobState.SCHEDULED);
    assertThat(queue.get(failed.id()).orElseThrow().lastError()).isEqualTo("try again");
    for (LeasedJob job : first.subList(1, 4)) {
      queue.pull().ack(job);
    }
    rest.forEach(queue.pull()::ack);
    assertThatThrownBy(() -> queue.pull().ack(rest.get(0))).isInstanceOf(LeaseExpiredException.class);
    List<LeasedJob> retried = queue.pull().claim(10, Duration.ofSeconds(30));
    assertThat(retried).extracting(LeasedJob::id, LeasedJob::attempt).containsExactly(org.assertj.core.groups.Tuple.tuple(failed.id(), 2));
    assertThatThrownBy(() -> queue.pull().claim(0, Duration.ofSeconds(1))).isInstanceOf(InvalidRequestException.class);
    assertThatThrownBy(() -> queue.pull().claim(1, Duration.ofMillis(5))).isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("lease");
  }

  @Test
  void closeWaitsForRunningHandlersToFinish() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("graceful"));
    CountDownLatch started = new CountDownLatch(1);
    AtomicInteger finished = new AtomicInteger();
    Workers workers = queue.startWorkers(job -> {
      started.countDown();
      Thread.sleep(300);
      finished.incrementAndGet();
    }, fast().build());
    queue.schedule(JobRequest.of("x").withId("short"));
    await().atMost(Duration.ofSeconds(5)).until(() -> started.getCount() == 0);
    workers.close();
    assertThat(finished).hasValue(1);
    assertThat(queue.get("short")).isEmpty();
  }

  /**
   * Jobs that come due one by one while the handlers before them still run: each finds a free
   * handler at once, up to the concurrency, however few jobs the earlier claims brought.
   */
  @ParameterizedTest(name = "concurrency {0}")
  @ValueSource(ints = {4, 5, 8})
  void aJobDueWhileOtherHandlersRunStartsOnAFreeHandlerAtOnce(int concurrency) {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("free-handler"));
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger done = new AtomicInteger();
    try (Workers workers = queue.startWorkers(job -> {
          try {
            release.await(30, TimeUnit.SECONDS);
          } finally {
            done.incrementAndGet();
          }
        }, fast().concurrency(concurrency).build())) {
      for (int i = 1; i <= concurrency; i++) {
        queue.schedule(JobRequest.of("x").withId("job-" + i));
        int expected = i;
        // Well past the one-second sweep: a pool that claims at all claims within it.
        await("handler " + i + " of " + concurrency + " started").atMost(Duration.ofSeconds(5))
            .until(() -> workers.inFlight() == expected);
      }
      // And no more than the concurrency: one job beyond it waits in Redis, not in this process.
      queue.schedule(JobRequest.of("x").withId("one-too-many"));
      await().during(Duration.ofMillis(1_500)).atMost(Duration.ofSeconds(3))
          .until(() -> workers.inFlight() == concurrency && queue.admin().stats().due() == 1);
      release.countDown();
      await().atMost(Duration.ofSeconds(10)).until(() -> done.get() == concurrency + 1);
    }
  }

  @Test
  void pausedQueueIsNotClaimedUntilResumed() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("pause-workers"));
    AtomicInteger runs = new AtomicInteger();
    try (Workers workers = queue.startWorkers(job -> runs.incrementAndGet(), fast().build())) {
      queue.admin().pause();
      queue.schedule(JobRequest.of("x").withId("held-back"));
      await().during(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(3)).until(() -> runs.get() == 0);
      assertThat(runs).hasValue(0);
      assertThat(queue.admin().stats().due()).isEqualTo(1);
      queue.admin().resume();
      await().atMost(Duration.ofSeconds(3)).until(() -> runs.get() == 1);
    }
  }

  @Test
  void workersRunOnTheCallersExecutorAndLeaveItRunning() throws Exception {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("executor"));
    ExecutorService mine = Executors.newFixedThreadPool(2, r -> new Thread(r, "callers-thread"));
    try {
      Map<String, String> threads = new ConcurrentHashMap<>();
      Workers workers = queue.startWorkers(job -> threads.put(job.id(), Thread.currentThread().getName()),
          fast().concurrency(2).executor(mine).build());
      queue.schedule(JobRequest.of("x").withId("e1"));
      await().atMost(Duration.ofSeconds(5)).until(() -> threads.containsKey("e1"));
      workers.close();
      assertThat(threads.get("e1")).isEqualTo("callers-thread");
      assertThat(mine.isShutdown()).isFalse();
    } finally {
      mine.shutdownNow();
    }
  }

  @Test
  void workerThreadsAreNamedAfterTheQueue() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("names"));
    Map<String, String> threads = new ConcurrentHashMap<>();
    try (Workers workers = queue.startWorkers(job -> threads.put(job.id(), Thread.currentThread().getName()), fast().build())) {
      queue.schedule(JobRequest.of("x").withId("n1"));
      await().atMost(Duration.ofSeconds(5)).until(() -> threads.containsKey("n1"));
      assertThat(threads.get("n1")).startsWith("delayq-worker-" + queue.name() + "-");
    }
  }

  @Test
  void nullHandlerIsRefused() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("null-handler"));
    assertThatThrownBy(() -> queue.startWorkers(null, WorkerOptions.defaults()))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("handler");
  }

  @Test
  void closingTheClientStopsItsWorkers() {
    Delayq own = Delayq.connect(TestRedis.url());
    Workers workers = own.queue(TestRedis.uniqueQueue("client-close")).startWorkers(job -> {}, fast().build());
    own.close();
    assertThat(workers.isRunning()).isFalse();
  }
}
