package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.embedded.RedisServerProcess;
import io.delayq.testing.TestRedis;
import io.lettuce.core.RedisClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The prefetch buffer never starts a job whose lease has ended; a refusing executor costs no busy loop. */
class PrefetchIT {

  @Test
  void jobsWaitingBehindASlowOneAreNotRunTwice() {
    try (Delayq delayq = Delayq.connect(TestRedis.url())) {
      JobQueue queue = delayq.queue(TestRedis.uniqueQueue("behind-slow"));
      Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
      try (Workers workers = queue.startWorkers(job -> {
            runs.computeIfAbsent(job.id(), id -> new AtomicInteger()).incrementAndGet();
            if (job.id().equals("slow")) {
              job.extendLease(Duration.ofSeconds(10)); // a long handler keeps its own lease
              Thread.sleep(3_000);
            }
          }, WorkerOptions.builder().concurrency(1).lease(Duration.ofSeconds(1)).build())) {
        // Fast jobs first: the pool learns its handler is quick and prefetches whole batches.
        List<JobRequest> warm = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
          warm.add(JobRequest.of("w").withId("warm-" + i));
        }
        queue.scheduleAll(warm);
        await().atMost(Duration.ofSeconds(10)).until(() -> runs.size() == 200);
        List<JobRequest> batch = new ArrayList<>();
        batch.add(JobRequest.of("s").withId("slow"));
        for (int i = 0; i < 150; i++) {
          batch.add(JobRequest.of("f").withId("fast-" + i).withDelay(Duration.ofMillis(5)));
        }
        queue.scheduleAll(batch);
        await().atMost(Duration.ofSeconds(30)).until(() -> runs.size() == 351 && queue.admin().stats().active() == 0
            && queue.admin().stats().scheduled() == 0);
      }
      List<String> twice = runs.entrySet().stream().filter(e -> e.getValue().get() > 1).map(Map.Entry::getKey).toList();
      assertThat(twice).as("jobs run twice").isEmpty();
    }
  }

  @Test
  void anExecutorThatRejectsWorkCausesNoClaimLoop() throws Exception {
    try (RedisServerProcess redis = RedisServerProcess.builder().start();
        Delayq delayq = Delayq.connect(redis.uri())) {
      JobQueue queue = delayq.queue("rejected");
      for (int i = 0; i < 10; i++) {
        queue.schedule(JobRequest.of("x").withId("r-" + i));
      }
      AtomicInteger refused = new AtomicInteger();
      java.util.concurrent.ExecutorService refusing = new AbstractExecutorService() {
        @Override
        public void execute(Runnable command) {
          refused.incrementAndGet();
          throw new RejectedExecutionException("saturated");
        }

        @Override
        public void shutdown() {}

        @Override
        public List<Runnable> shutdownNow() {
          return List.of();
        }

        @Override
        public boolean isShutdown() {
          return false;
        }

        @Override
        public boolean isTerminated() {
          return false;
        }

        @Override
        public boolean awaitTermination(long timeout, TimeUnit unit) {
          return true;
        }
      };
      long before = evalshaCalls(redis);
      try (Workers workers = queue.startWorkers(job -> {}, WorkerOptions.builder().executor(refusing).build())) {
        await().atMost(Duration.ofSeconds(2)).until(() -> refused.get() >= 1);
        // Over the next seconds the pool backs off instead of claiming and handing back in a loop.
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(4)).until(() -> refused.get() <= 4);
      }
      long calls = evalshaCalls(redis) - before;
      // A claim and a hand-back per refusal, backing off from 1 s: a handful in 3 s, not thousands.
      assertThat(calls).isLessThan(20);
      assertThat(queue.admin().stats().scheduled()).as("every job handed back").isEqualTo(10);
      assertThat(queue.get("r-0").orElseThrow().attempts()).isZero();
    }
  }

  private static long evalshaCalls(RedisServerProcess redis) {
    RedisClient raw = RedisClient.create(redis.uri());
    try (var c = raw.connect()) {
      String stats = c.sync().info("commandstats");
      java.util.regex.Matcher m = java.util.regex.Pattern.compile("cmdstat_evalsha:calls=(\\d+)").matcher(stats);
      long evalsha = m.find() ? Long.parseLong(m.group(1)) : 0;
      m = java.util.regex.Pattern.compile("cmdstat_eval:calls=(\\d+)").matcher(stats);
      return evalsha + (m.find() ? Long.parseLong(m.group(1)) : 0);
    } finally {
      raw.shutdown();
    }
  }

  @Test
  void anExecutorThatSilentlyDropsATaskDoesNotWedgeTheWorkers() throws Exception {
    java.util.concurrent.ThreadPoolExecutor executor = new java.util.concurrent.ThreadPoolExecutor(1, 1, 0,
        TimeUnit.MILLISECONDS, new java.util.concurrent.ArrayBlockingQueue<>(1),
        new java.util.concurrent.ThreadPoolExecutor.DiscardPolicy());
    java.util.concurrent.CountDownLatch appBusy = new java.util.concurrent.CountDownLatch(1);
    // The application's own work fills the executor for a moment: what comes now is discarded.
    executor.execute(() -> {
      try {
        appBusy.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    executor.execute(() -> {});
    try (Delayq delayq = Delayq.connect(TestRedis.url())) {
      JobQueue queue = delayq.queue(TestRedis.uniqueQueue("discard"));
      Set<String> handled = ConcurrentHashMap.newKeySet();
      try (Workers workers = queue.startWorkers(j -> handled.add(j.id()),
          WorkerOptions.builder().concurrency(1).executor(executor).sweepInterval(Duration.ofMillis(200)).build())) {
        queue.schedule(JobRequest.of("x").withId("first"));
        await().atMost(Duration.ofSeconds(5)).until(() -> queue.admin().stats().active() == 1);
        appBusy.countDown();
        for (int i = 0; i < 5; i++) {
          queue.schedule(JobRequest.of("x").withId("later-" + i));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> handled.size() == 6);
      }
    } finally {
      executor.shutdownNow();
    }
  }
}
