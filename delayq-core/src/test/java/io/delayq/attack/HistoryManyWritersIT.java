package io.delayq.attack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.Delayq;
import io.delayq.HistoryBucket;
import io.delayq.JobRequest;
import io.delayq.internal.Histories;
import io.delayq.testing.TestRedis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** Twenty clients, each scheduling from several threads while flushing by timer and by hand. */
class HistoryManyWritersIT {
  @Test
  void countsFromManyClientsFlushingIntoTheSameMinuteAreExact() throws Exception {
    String name = TestRedis.uniqueQueue("history-many");
    List<Delayq> clients = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(40);
    try {
      for (int c = 0; c < 20; c++) {
        clients.add(Delayq.builder().redisUrl(TestRedis.url()).historyFlushInterval(Duration.ofMillis(100)).build());
      }
      List<Future<?>> done = new ArrayList<>();
      for (int c = 0; c < clients.size(); c++) {
        Delayq client = clients.get(c);
        for (int t = 0; t < 2; t++) {
          String prefix = c + "-" + t + "-";
          done.add(pool.submit(() -> {
            for (int i = 0; i < 50; i++) {
              client.queue(name).schedule(JobRequest.of("x").withId(prefix + i));
              if (i % 7 == 0) {
                Histories.flush(client.queue(name));
              }
            }
          }));
        }
      }
      for (Future<?> f : done) {
        f.get();
      }
      // Half the clients close (their last flush); the rest flush by timer.
      for (int c = 0; c < 10; c++) {
        clients.get(c).close();
      }
      Delayq reader = clients.get(19);
      await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(
          reader.queue(name).admin().historyByMinute(5).stream().mapToLong(HistoryBucket::scheduled).sum())
          .isEqualTo(2000));
      assertThat(reader.queue(name).admin().historyByHour(2).stream().mapToLong(HistoryBucket::scheduled).sum())
          .isEqualTo(2000);
    } finally {
      pool.shutdownNow();
      clients.forEach(Delayq::close);
    }
  }
}
