package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.embedded.RedisServerProcess;
import io.delayq.embedded.TcpProxy;
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

  /**
   * A wake message published while the subscription is gone reaches nobody. When Lettuce
   * renews the subscription after reconnecting, the workers look at the queue at once rather than
   * at their next sweep, so a job scheduled in the gap is not left waiting for it.
   */
  @Test
  void aJobScheduledWhileTheSubscriptionWasDownRunsAsSoonAsItIsRenewed() {
    try (RedisServerProcess redis = RedisServerProcess.builder().start();
        TcpProxy proxy = new TcpProxy("127.0.0.1", redis.port()).start();
        Delayq workerClient = Delayq.builder().redisUrl("redis://127.0.0.1:" + proxy.port())
            .commandTimeout(Duration.ofSeconds(2)).build();
        Delayq producerClient = Delayq.connect(redis.uri())) {
      String name = "renewed";
      Map<String, Instant> ranAt = new ConcurrentHashMap<>();
      try (Workers workers = workerClient.queue(name).startWorkers(job -> ranAt.put(job.id(), Instant.now()),
          WorkerOptions.builder().sweepInterval(Duration.ofMinutes(1)).build())) {
        await().atMost(Duration.ofSeconds(5)).until(() -> pubsubChannels(redis) >= 1);

        // the wake-up connection is cut and cannot come back; the workers' claim link stays up
        proxy.refuseNew();
        killPubSubClients(redis);
        await().atMost(Duration.ofSeconds(5)).until(() -> pubsubChannels(redis) == 0);
        ScheduledJob job = producerClient.queue(name).schedule(JobRequest.of("x").withId("in-the-gap"));

        proxy.forwardAll();
        await().atMost(Duration.ofSeconds(10)).until(() -> pubsubChannels(redis) >= 1);
        await().atMost(Duration.ofSeconds(10)).until(() -> ranAt.containsKey("in-the-gap"));
        assertThat(Duration.between(job.runAt(), ranAt.get("in-the-gap"))).isLessThan(Duration.ofSeconds(30));
      }
    }
  }

  private static void killPubSubClients(RedisServerProcess redis) {
    io.lettuce.core.RedisClient raw = io.lettuce.core.RedisClient.create(redis.uri());
    try (var c = raw.connect()) {
      c.sync().clientKill(io.lettuce.core.KillArgs.Builder.typePubsub());
    } finally {
      raw.shutdown();
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
