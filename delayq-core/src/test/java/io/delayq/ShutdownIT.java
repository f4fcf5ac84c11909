package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.testing.TestRedis;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Closing workers and clients in order: a handler past its shutdown timeout keeps its job (no
 * second worker runs it meanwhile), nothing buffered starts once close begins, a handler that
 * hangs at every try still reaches the dead set, and handlers in their grace period may still use
 * the client.
 */
class ShutdownIT {

  private static WorkerOptions.Builder options() {
    return WorkerOptions.builder().backoff(Backoff.fixed(Duration.ofMillis(50)));
  }

  @Test
  void aHandlerStillRunningAfterTheShutdownTimeoutKeepsItsJobUntilItReturns() {
    String name = TestRedis.uniqueQueue("straggler");
    CountDownLatch finish = new CountDownLatch(1);
    CountDownLatch started = new CountDownLatch(1);
    AtomicInteger runs = new AtomicInteger();
    try (Delayq first = Delayq.connect(TestRedis.url()); Delayq second = Delayq.connect(TestRedis.url())) {
      JobQueue queue = first.queue(name);
      Workers closing = queue.startWorkers(job -> {
        runs.incrementAndGet();
        started.countDown();
        // A handler that ignores interrupts, as blocking library calls often do.
        boolean done = false;
        while (!done) {
          try {
            done = finish.await(10, TimeUnit.SECONDS);
          } catch (InterruptedException ignored) {
            // carries on regardless
          }
        }
      }, options().lease(Duration.ofMillis(600)).shutdownTimeout(Duration.ofMillis(200)).build());
      queue.schedule(JobRequest.of("x").withId("long"));
      await().atMost(Duration.ofSeconds(5)).until(() -> started.getCount() == 0);
      closing.close();

      Workers other = second.queue(name).startWorkers(job -> runs.incrementAndGet(),
          options().sweepInterval(Duration.ofMillis(50)).build());
      // Several lease lengths pass: the job stays with the first handler, held, not expired.
      await().during(Duration.ofMillis(2_500)).atMost(Duration.ofSeconds(4)).until(() ->
          runs.get() == 1 && queue.get("long").orElseThrow().state() == JobState.ACTIVE);
      finish.countDown();
      await().atMost(Duration.ofSeconds(5)).until(() -> queue.get("long").isEmpty());
      assertThat(runs).hasValue(1);
      other.close();
    }
  }

  @Test
  void aHandlerThatHangsAtEveryTryStillUsesUpItsAttemptsAndGoesDead() {
    String name = TestRedis.uniqueQueue("hangs");
    try (Delayq delayq = Delayq.connect(TestRedis.url())) {
      JobQueue queue = delayq.queue(name);
      queue.schedule(JobRequest.of("x").withId("hang").withMaxAttempts(2));
      for (int round = 1; round <= 2; round++) {
        CountDownLatch started = new CountDownLatch(1);
        Workers workers = queue.startWorkers(job -> {
          started.countDown();
          Thread.sleep(60_000); // hangs; only the shutdown's interrupt ends it
        }, options().shutdownTimeout(Duration.ofMillis(100)).build());
        await().atMost(Duration.ofSeconds(5)).until(() -> started.getCount() == 0);
        workers.close();
        int expectedAttempts = round;
        await().atMost(Duration.ofSeconds(5)).until(() -> queue.get("hang").orElseThrow().attempts() == expectedAttempts
            && queue.get("hang").orElseThrow().state() != JobState.ACTIVE);
      }
      JobInfo info = queue.get("hang").orElseThrow();
      assertThat(info.state()).isEqualTo(JobState.DEAD);
      assertThat(info.attempts()).isEqualTo(2);
      assertThat(info.lastError()).contains("InterruptedException");
    }
  }

  @Test
  void onceCloseBeginsNoBufferedJobStarts() throws Exception {
    String name = TestRedis.uniqueQueue("buffered");
    try (Delayq delayq = Delayq.connect(TestRedis.url())) {
      JobQueue queue = delayq.queue(name);
      CountDownLatch blocker = new CountDownLatch(1);
      Set<String> ran = ConcurrentHashMap.newKeySet();
      AtomicBoolean closeBegan = new AtomicBoolean();
      List<String> startedAfterClose = new CopyOnWriteArrayList<>();
      Workers workers = queue.startWorkers(job -> {
        if (closeBegan.get()) {
          startedAfterClose.add(job.id());
        }
        ran.add(job.id());
        if (job.id().equals("blocker")) {
          blocker.await(10, TimeUnit.SECONDS);
        }
      }, options().concurrency(1).shutdownTimeout(Duration.ofSeconds(5)).build());
      // Quick jobs first teach the pool that handlers are fast, so it prefetches a buffer.
      for (int i = 0; i < 50; i++) {
        queue.schedule(JobRequest.of("w").withId("warm-" + i));
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> ran.size() == 50);
      queue.schedule(JobRequest.of("b").withId("blocker"));
      await().atMost(Duration.ofSeconds(5)).until(() -> ran.contains("blocker"));
      List<JobRequest> behind = new java.util.ArrayList<>();
      for (int i = 0; i < 40; i++) {
        behind.add(JobRequest.of("q").withId("queued-" + i));
      }
      queue.scheduleAll(behind);
      await().atMost(Duration.ofSeconds(5)).until(() -> queue.admin().stats().active() > 1);
      long buffered = queue.admin().stats().active() - 1;

      Thread closer = new Thread(() -> {
        closeBegan.set(true);
        workers.close();
      });
      closer.start();
      await().atMost(Duration.ofSeconds(5)).until(() -> queue.admin().stats().active() == 1);
      blocker.countDown();
      closer.join(10_000);
      assertThat(startedAfterClose).as("jobs started after close began").isEmpty();
      assertThat(buffered).as("jobs that waited in the buffer").isPositive();
      QueueStats stats = queue.admin().stats();
      assertThat(stats.active()).isZero();
      // Handed back uncounted: due at once, on their first attempt still.
      for (int i = 0; i < 40; i++) {
        JobInfo info = queue.get("queued-" + i).orElseThrow();
        assertThat(info.state()).isEqualTo(JobState.SCHEDULED);
        assertThat(info.attempts()).isZero();
      }
    }
  }

  @Test
  void handlersInTheirGracePeriodMayStillUseTheClient() throws Exception {
    String name = TestRedis.uniqueQueue("grace");
    Delayq delayq = Delayq.connect(TestRedis.url());
    JobQueue queue = delayq.queue(name);
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch closing = new CountDownLatch(1);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Map<String, Object> done = new ConcurrentHashMap<>();
    queue.startWorkers(job -> {
      started.countDown();
      closing.await(10, TimeUnit.SECONDS);
      try {
        job.extendLease(Duration.ofSeconds(10));
        queue.schedule(JobRequest.of("next").withId("follow-up").withDelay(Duration.ofHours(1)));
        done.put(job.id(), true);
      } catch (Throwable t) {
        failure.set(t);
        throw t;
      }
    }, options().shutdownTimeout(Duration.ofSeconds(5)).build());
    queue.schedule(JobRequest.of("x").withId("first"));
    await().atMost(Duration.ofSeconds(5)).until(() -> started.getCount() == 0);
    Thread closer = new Thread(delayq::close);
    closer.start();
    await().atMost(Duration.ofSeconds(2)).until(() -> closer.getState() == Thread.State.WAITING
        || closer.getState() == Thread.State.TIMED_WAITING);
    closing.countDown();
    closer.join(10_000);
    assertThat(failure.get()).as("what the handler got from the client while it closed").isNull();
    assertThat(done).containsKey("first");
    try (Delayq check = Delayq.connect(TestRedis.url())) {
      JobQueue q = check.queue(name);
      assertThat(q.get("first")).as("acked after its grace-period calls").isEmpty();
      assertThat(q.get("follow-up")).isPresent();
    }
    assertThat(delayq.isClosed()).isTrue();
  }

  @Test
  void aHandlerThatClosesItsOwnWorkersReturnsPromptly() throws Exception {
    try (Delayq delayq = Delayq.connect(TestRedis.url())) {
      JobQueue queue = delayq.queue(TestRedis.uniqueQueue("self-close"));
      AtomicReference<Workers> self = new AtomicReference<>();
      java.util.concurrent.CompletableFuture<Long> closeTook = new java.util.concurrent.CompletableFuture<>();
      AtomicBoolean interrupted = new AtomicBoolean();
      CountDownLatch ready = new CountDownLatch(1);
      Workers workers = queue.startWorkers(job -> {
        ready.await(5, TimeUnit.SECONDS);
        long t0 = System.nanoTime();
        self.get().close(); // "stop after this job"
        closeTook.complete(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
        interrupted.set(Thread.currentThread().isInterrupted());
      }, options().build());
      self.set(workers);
      ready.countDown();
      queue.schedule(JobRequest.of("last").withId("stop"));
      assertThat(closeTook.get(30, TimeUnit.SECONDS)).isLessThan(2_000L);
      assertThat(interrupted).isFalse();
      await().atMost(Duration.ofSeconds(5)).until(() -> queue.get("stop").isEmpty());
    }
  }

  @Test
  void closeLeavesNoThreadBehind() throws Exception {
    for (int round = 0; round < 3; round++) {
      Delayq delayq = Delayq.connect(TestRedis.url());
      JobQueue queue = delayq.queue(TestRedis.uniqueQueue("threads"));
      queue.schedule(JobRequest.of("x"));
      queue.startWorkers(j -> {}, options().concurrency(3).build());
      CountDownLatch polling = new CountDownLatch(1);
      Thread poller = new Thread(() -> {
        polling.countDown();
        try {
          queue.pull().claim(1, Duration.ofSeconds(1), Duration.ofSeconds(2));
        } catch (RuntimeException e) {
          // the client closed under it
        }
      });
      poller.start();
      polling.await();
      delayq.close();
      poller.join(10_000);
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> Thread.getAllStackTraces().keySet().stream()
        .filter(Thread::isAlive)
        .map(Thread::getName)
        .noneMatch(n -> n.startsWith("delayq-") || n.startsWith("lettuce-")));
  }
}
