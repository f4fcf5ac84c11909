package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayq.testing.TestRedis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Workers' settling calls never wait behind a producer's pipelined bulk schedule. */
class ConnectionsIT {

  @Test
  void acksDoNotQueueBehindABulkSchedule() throws Exception {
    try (Delayq delayq = Delayq.connect(TestRedis.url())) {
      JobQueue bulk = delayq.queue(TestRedis.uniqueQueue("bulk"));
      JobQueue work = delayq.queue(TestRedis.uniqueQueue("work"));
      byte[] big = new byte[128 * 1024];
      List<JobRequest> requests = new ArrayList<>();
      for (int i = 0; i < 600; i++) {
        requests.add(JobRequest.of(big).withDelay(Duration.ofHours(1)));
      }
      for (int i = 0; i < 200; i++) {
        work.schedule(JobRequest.of("w").withId("w-" + i));
      }
      List<LeasedJob> claimed = work.pull().claim(200, Duration.ofMinutes(1));
      assertThat(claimed).hasSize(200);
      // ~75 MB of schedules pipelined on the producer connection, 64 calls of up to 1 MiB in flight
      CompletableFuture<List<ScheduledJob>> load = CompletableFuture.supplyAsync(() -> bulk.scheduleAll(requests));
      List<Long> ackNanos = new ArrayList<>();
      for (LeasedJob job : claimed) {
        if (load.isDone()) {
          break;
        }
        long t0 = System.nanoTime();
        work.pull().ack(job);
        ackNanos.add(System.nanoTime() - t0);
      }
      List<ScheduledJob> loaded = load.get();
      assertThat(loaded).hasSize(600);
      loaded.forEach(j -> bulk.cancel(j.id()));
      assertThat(ackNanos).as("acks measured while the bulk schedule was in flight").hasSizeGreaterThan(10);
      Collections.sort(ackNanos);
      Duration median = Duration.ofNanos(ackNanos.get(ackNanos.size() / 2));
      assertThat(median).isLessThan(Duration.ofMillis(20));
    }
  }
}
