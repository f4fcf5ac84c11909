package io.delayq.attack;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayq.Delayq;
import io.delayq.JobQueue;
import io.delayq.JobRequest;
import io.delayq.internal.Histories;
import io.delayq.testing.TestRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Deleting a queue's history while another client still holds unflushed counts of it. */
class HistoryDeletionAttackIT {
  @Test
  void anotherClientsLaterFlushDoesNotBringBackADeletedQueuesHistory() {
    String name = TestRedis.uniqueQueue("history-deleted");
    RedisClient raw = RedisClient.create(TestRedis.url());
    try (Delayq producer = Delayq.builder().redisUrl(TestRedis.url()).historyFlushInterval(Duration.ofMinutes(1)).build();
        Delayq admin = Delayq.connect(TestRedis.url());
        StatefulRedisConnection<String, String> redis = raw.connect()) {
      JobQueue queue = producer.queue(name);
      queue.schedule(JobRequest.of("x").withId("a"));
      assertThat(Histories.flush(queue)).isTrue();
      queue.schedule(JobRequest.of("x").withId("b"));
      admin.queue(name).admin().delete(true);
      // The queue's history keys share its settings tag; the pattern names both shapes they ever had.
      String pattern = "{dq:" + name + "}:history:*";
      String formerPattern = "{dq:h:" + name + "}:*";
      assertThat(TestRedis.keysMatching(redis, pattern)).as("right after the delete").isEmpty();
      Histories.flush(queue);
      assertThat(TestRedis.keysMatching(redis, pattern)).as("after the producer's next flush").isEmpty();
      assertThat(TestRedis.keysMatching(redis, formerPattern)).as("after the producer's next flush, former names").isEmpty();
    } finally {
      raw.shutdown();
    }
  }
}
