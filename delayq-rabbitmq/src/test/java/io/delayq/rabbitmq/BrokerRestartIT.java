package io.delayq.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.Delayq;
import io.delayq.ForwarderStatus.State;
import io.delayq.JobQueue;
import io.delayq.JobRequest;
import io.delayq.testing.TestRedis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The broker stops (rabbitmqctl stop_app) and starts again while jobs keep coming due: nothing is
 * lost, duplicates carry the same messageId and stay within the window, and the forwarder
 * recovers by itself. The broker is shared: it is down for a few seconds and always started again.
 */
class BrokerRestartIT {
  @Test
  void aBrokerThatStopsAndStartsMidRunLosesNothingAndTheForwarderRecoversByItself() throws Exception {
    TestRabbit.assumeReachable();
    int n = 3_000;
    int window = 200;
    List<State> seen = new CopyOnWriteArrayList<>();
    ScheduledExecutorService watcher = Executors.newSingleThreadScheduledExecutor();
    try (Delayq delayq = Delayq.connect(TestRedis.url());
        TestRabbit.Sink sink = new TestRabbit.Sink("restart")) {
      JobQueue queue = delayq.queue(TestRedis.uniqueQueue("rabbit-restart"));
      List<JobRequest> requests = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        // due over 8 seconds: jobs come due before, during and after the outage
        requests.add(JobRequest.of("r" + i).withId("r" + i).withDelay(Duration.ofMillis(i * 8_000L / n)));
      }
      for (int from = 0; from < n; from += 1000) {
        queue.scheduleAll(requests.subList(from, from + 1000));
      }
      try (RabbitForwarder f = RabbitForwarder.builder(queue, TestRabbit.factory())
          .exchange(sink.exchange)
          .routingKey(sink.key)
          .maxInFlight(window)
          .confirmTimeout(Duration.ofSeconds(2))
          .lease(Duration.ofSeconds(10))
          .retryBackoff(Duration.ofMillis(100), Duration.ofSeconds(1))
          .start()) {
        watcher.scheduleAtFixedRate(() -> {
          State s = f.status().state();
          if (seen.isEmpty() || seen.get(seen.size() - 1) != s) {
            seen.add(s);
          }
        }, 0, 10, TimeUnit.MILLISECONDS);
        await().atMost(Duration.ofSeconds(20)).until(() -> f.status().forwarded() >= 300);

        try {
          TestRabbit.rabbitmqctl("stop_app");
          await().atMost(Duration.ofSeconds(10)).until(() -> f.status().state() == State.RETRYING);
          assertThat(f.status().lastError()).isNotBlank();
          // jobs keep coming due while the broker is away; it stays down for about three seconds
          long stoppedAt = f.status().forwarded();
          await().pollDelay(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(4)).until(() -> true);
          assertThat(f.status().forwarded()).as("nothing is recorded as forwarded while the broker is down")
              .isEqualTo(stoppedAt);
        } finally {
          TestRabbit.rabbitmqctl("start_app");
        }

        await().atMost(Duration.ofSeconds(60)).until(() -> sink.distinct() == n);
        await().atMost(Duration.ofSeconds(30)).until(() -> f.status().state() == State.RUNNING);
        await().atMost(Duration.ofSeconds(10)).until(() -> {
          var s = queue.admin().stats();
          return s.scheduled() == 0 && s.active() == 0;
        });
        assertThat(queue.admin().stats().dead()).isZero();
        long duplicates = sink.duplicates();
        long republished = sink.republished();
        System.out.printf("broker restart: %d jobs, %d duplicate deliveries (same messageId), %d of them published"
            + " again by the forwarder, %d handed back, states %s%n", n, duplicates, republished, f.status().retried(),
            seen);
        assertThat(republished).as("published again only when in flight at the outage").isLessThanOrEqualTo(window);
        assertThat(sink.firstDeliveries.values()).allSatisfy(c -> assertThat(c.get()).isBetween(1, 2));
        assertThat(f.status().forwarded()).isEqualTo(n);
        int retrying = seen.indexOf(State.RETRYING);
        assertThat(retrying).as("went RETRYING: %s", seen).isGreaterThan(0);
        assertThat(seen.subList(retrying, seen.size())).as("then RUNNING again: %s", seen).contains(State.RUNNING);
      }
    } finally {
      watcher.shutdownNow();
    }
  }
}
