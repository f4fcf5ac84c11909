package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.testing.TestRedis;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Workers that keep a job's lease while its handler runs, against ones that do not. */
class LeaseKeepingIT {
  private static Delayq delayq;

  @BeforeAll
  static void connect() {
    delayq = Delayq.connect(TestRedis.url());
  }

  @AfterAll
  static void close() {
    delayq.close();
  }

  private static int runsOfAHandlerThatOutlivesItsLease(boolean keepLease) throws Exception {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue(keepLease ? "keep-lease" : "no-keep-lease"));
    AtomicInteger runs = new AtomicInteger();
    AtomicInteger finished = new AtomicInteger();
    WorkerOptions options = WorkerOptions.builder().lease(Duration.ofMillis(300)).concurrency(4)
        .keepLeaseWhileRunning(keepLease).build();
    try (Workers workers = queue.startWorkers(job -> {
      runs.incrementAndGet();
      Thread.sleep(1_500); // why: the work itself, five times the lease
      finished.incrementAndGet();
    }, options)) {
      queue.schedule(JobRequest.of("report").withId("nightly"));
      await().atMost(Duration.ofSeconds(20)).until(() -> finished.get() >= 1
          && queue.admin().stats().active() == 0 && queue.admin().stats().scheduled() == 0);
    }
    return runs.get();
  }

  @Test
  void aHandlerThatOutlivesItsLeaseRunsOnceWhenTheWorkersKeepLeases() throws Exception {
    assertThat(runsOfAHandlerThatOutlivesItsLease(true)).isEqualTo(1);
  }

  @Test
  void withoutKeepingLeasesTheSameHandlerIsDeliveredAgainWhileItRuns() throws Exception {
    assertThat(runsOfAHandlerThatOutlivesItsLease(false)).isGreaterThan(1);
  }
}
