package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.embedded.RedisServerProcess;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/** Wake-up subscriptions are made even when asked for while Redis is away. */
class WakeUpIT {

  @Test
  void workersStartedWhileRedisIsDownAreWokenOnceItIsBack() {
    try (RedisServerProcess redis = RedisServerProcess.builder().start();
        Delayq delayq = Delayq.builder().redisUrl(redis.uri()).commandTimeout(Duration.ofSeconds(2)).build()) {
      // The first pool opens the wake-up connection while Redis is up.
      Workers early = delayq.queue("early").startWorkers(job -> {}, WorkerOptions.defaults());
      JobQueue late = delayq.queue("late");
      await().atMost(Duration.ofSeconds(5)).until(() -> pubsubChannels(redis) >= 1);

      redis.kill();
      // A second pool asks for its subscription while the connection is down; its sweep is far
      // longer than the test, so only a wake-up message can bring it a job quickly.
      Map<String, Instant> ranAt = new ConcurrentHashMap<>();
      Workers workers = late.startWorkers(job -> ranAt.put(job.id(), Instant.now()),
          WorkerOptions.builder().sweepInterval(Duration.ofMinutes(1)).build());
      redis.restart();
      await().atMost(Duration.ofSeconds(10)).until(() -> pubsubChannels(redis) >= 2);

      ScheduledJob job = scheduleWhenUp(late, "after-restart");
      await().atMost(Duration.ofSeconds(5)).until(() -> ranAt.containsKey("after-restart"));
      assertThat(Duration.between(job.runAt(), ranAt.get("after-restart"))).isLessThan(Duration.ofSeconds(2));
      workers.close();
      early.close();
    }
  }

  private static ScheduledJob scheduleWhenUp(JobQueue queue, String id) {
    ScheduledJob[] result = new ScheduledJob[1];
    // why: the worker first sleeps until its next sweep; the job is due shortly after scheduling
    await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> {
      result[0] = queue.schedule(JobRequest.of("x").withId(id).withDelay(Duration.ofMillis(300)));
      return true;
    });
    return result[0];
  }

  private static long pubsubChannels(RedisServerProcess redis) {
    io.lettuce.core.RedisClient raw = io.lettuce.core.RedisClient.create(redis.uri());
    try (var c = raw.connect()) {
      return c.sync().pubsubChannels("dq:*:wake").size();
    } catch (RuntimeException e) {
      return -1;
    } finally {
      raw.shutdown();
    }
  }
}
