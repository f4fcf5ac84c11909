package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.testing.TestRedis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The core promise under load: 100,000 jobs due over a few seconds, two independent clients with
 * eight workers each, every job handled exactly once and none before its due time.
 */
class ExactlyOnceIT {
  private static final int JOBS = 100_000;

  @Test
  void everyJobIsHandledExactlyOnceAndNeverEarly() {
    String name = TestRedis.uniqueQueue("exactly-once");
    Map<String, AtomicInteger> deliveries = new ConcurrentHashMap<>(JOBS * 2);
    Map<String, Long> dueAt = new ConcurrentHashMap<>(JOBS * 2);
    AtomicLong early = new AtomicLong();
    AtomicInteger byFirst = new AtomicInteger();
    AtomicInteger bySecond = new AtomicInteger();

    try (Delayq producer = Delayq.connect(TestRedis.url());
        Delayq clientA = Delayq.connect(TestRedis.url());
        Delayq clientB = Delayq.connect(TestRedis.url())) {
      JobQueue queue = producer.queue(name, 4);
      WorkerOptions options = WorkerOptions.builder().concurrency(8).build();
      Workers a = clientA.queue(name).startWorkers(job -> record(job, deliveries, early, byFirst), options);
      Workers b = clientB.queue(name).startWorkers(job -> record(job, deliveries, early, bySecond), options);

      List<JobRequest> batch = new ArrayList<>(10_000);
      for (int i = 0; i < JOBS; i++) {
        // Spread over the next three seconds, with many sharing the same millisecond.
        batch.add(JobRequest.of("order-" + i).withId("job-" + i).withDelay(Duration.ofMillis(500 + (i % 3000))));
        if (batch.size() == 10_000) {
          queue.scheduleAll(batch).forEach(s -> dueAt.put(s.id(), s.runAt().toEpochMilli()));
          batch.clear();
        }
      }

      await().atMost(Duration.ofSeconds(120)).until(() -> deliveries.size() == JOBS && a.inFlight() + b.inFlight() == 0);
      // Anything still pending would show up as active or scheduled.
      await().atMost(Duration.ofSeconds(10)).until(() -> {
        QueueStats s = queue.admin().stats();
        return s.scheduled() == 0 && s.active() == 0;
      });
      a.close();
      b.close();

      assertThat(deliveries).hasSize(JOBS);
      assertThat(deliveries.values()).allSatisfy(n -> assertThat(n).hasValue(1));
      assertThat(early).hasValue(0);
      assertThat(byFirst.get() + bySecond.get()).isEqualTo(JOBS);
      assertThat(byFirst.get()).isPositive();
      assertThat(bySecond.get()).isPositive();
      assertThat(queue.admin().stats().dead()).isZero();
      assertThat(dueAt).hasSize(JOBS);
    }
  }

  private static void record(LeasedJob job, Map<String, AtomicInteger> deliveries, AtomicLong early, AtomicInteger mine) {
    long now = System.currentTimeMillis();
    // runAt is the due time by the Redis clock; this machine's clock is the same clock.
    if (now < job.runAt().toEpochMilli()) {
      early.incrementAndGet();
    }
    deliveries.computeIfAbsent(job.id(), id -> new AtomicInteger()).incrementAndGet();
    mine.incrementAndGet();
  }
}
