package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.testing.TestRedis;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Cancel and reschedule racing with workers that claim the same jobs. */
class RacesIT {
  private final java.util.Random random = new java.util.Random();

  @Test
  void aJobIsEitherCancelledOrDeliveredNeverBoth() {
    String name = TestRedis.uniqueQueue("cancel-race");
    int jobs = 3_000;
    Map<String, AtomicInteger> delivered = new ConcurrentHashMap<>();
    Set<String> cancelled = ConcurrentHashMap.newKeySet();
    Set<String> refusedAsActive = ConcurrentHashMap.newKeySet();
    try (Delayq producer = Delayq.connect(TestRedis.url()); Delayq consumer = Delayq.connect(TestRedis.url())) {
      JobQueue queue = producer.queue(name, 2);
      List<JobRequest> requests = new ArrayList<>();
      for (int i = 0; i < jobs; i++) {
        // Due times spread over the span of the cancel loop, so some are claimed first and some not.
        requests.add(JobRequest.of("x").withId("r" + i).withDelay(Duration.ofMillis(random.nextInt(400))));
      }
      queue.scheduleAll(requests);
      try (Workers workers = consumer.queue(name).startWorkers(
          job -> delivered.computeIfAbsent(job.id(), k -> new AtomicInteger()).incrementAndGet(),
          WorkerOptions.builder().concurrency(8).build())) {
        // Cancel every job while the workers race for them around their due time.
        for (int i = 0; i < jobs; i++) {
          String id = "r" + i;
          try {
            if (queue.cancel(id)) {
              cancelled.add(id);
            }
          } catch (JobActiveException e) {
            refusedAsActive.add(id);
          }
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> delivered.size() + cancelled.size() == jobs);
        await().atMost(Duration.ofSeconds(10)).until(() -> queue.admin().stats().active() == 0);
      }
      assertThat(cancelled).as("the race happened: some cancelled").isNotEmpty();
      assertThat(delivered).as("the race happened: some delivered").isNotEmpty();
      assertThat(cancelled).doesNotContainAnyElementsOf(delivered.keySet());
      assertThat(delivered.keySet()).containsAll(refusedAsActive);
      assertThat(delivered.values()).allSatisfy(n -> assertThat(n).hasValue(1));
      assertThat(delivered.size() + cancelled.size()).isEqualTo(jobs);
      assertThat(queue.admin().stats().scheduled()).isZero();
    }
  }

  @Test
  void aRescheduledJobRunsOnceAtItsNewTime() {
    String name = TestRedis.uniqueQueue("reschedule-race");
    int jobs = 1_000;
    Map<String, List<Instant>> runs = new ConcurrentHashMap<>();
    Map<String, Instant> newDue = new ConcurrentHashMap<>();
    try (Delayq producer = Delayq.connect(TestRedis.url()); Delayq consumer = Delayq.connect(TestRedis.url())) {
      JobQueue queue = producer.queue(name, 2);
      List<JobRequest> requests = new ArrayList<>();
      for (int i = 0; i < jobs; i++) {
        requests.add(JobRequest.of("x").withId("m" + i).withDelay(Duration.ofMillis(random.nextInt(150))));
      }
      queue.scheduleAll(requests);
      try (Workers workers = consumer.queue(name).startWorkers(
          job -> runs.computeIfAbsent(job.id(), k -> new java.util.concurrent.CopyOnWriteArrayList<>()).add(Instant.now()),
          WorkerOptions.builder().concurrency(8).build())) {
        // Push every job a second later while workers are about to claim them.
        for (int i = 0; i < jobs; i++) {
          String id = "m" + i;
          try {
            newDue.put(id, queue.reschedule(id, Duration.ofSeconds(1)).runAt());
          } catch (JobActiveException | JobNotFoundException e) {
            // already claimed (or done): it runs at its first time instead
          }
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> runs.size() == jobs);
        await().atMost(Duration.ofSeconds(10)).until(() -> queue.admin().stats().active() == 0);
      }
      assertThat(newDue).as("the race happened: some rescheduled").isNotEmpty();
      assertThat(newDue.size()).as("the race happened: some ran at their first time").isLessThan(jobs);
      assertThat(runs.values()).allSatisfy(times -> assertThat(times).hasSize(1));
      newDue.forEach((id, due) -> assertThat(runs.get(id).get(0)).isAfterOrEqualTo(due));
    }
  }
}
