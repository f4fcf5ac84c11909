package io.delayq.server.cli;

import static org.awaitility.Awaitility.await;

import io.delayq.Delayq;
import io.delayq.JobQueue;
import io.delayq.JobRequest;
import io.delayq.LeasedJob;
import io.delayq.embedded.RedisServerProcess;
import io.delayq.server.testing.ServerProcess;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The job commands with {@code --redis}: on {@code DELAYQ_TEST_REDIS}, else on a bundled
 * redis-server started for this class. The test seeds and claims jobs through delayq-core's public
 * API, as another application on the same Redis would.
 */
class CliDirectIT extends CliContract {
  private static RedisServerProcess ownRedis;
  private static String redisUrl;
  private static Delayq delayq;

  @BeforeAll
  static void redis() {
    redisUrl = ServerProcess.testRedis();
    if (redisUrl == null) {
      ownRedis = RedisServerProcess.builder().start();
      redisUrl = ownRedis.uri();
    }
    delayq = Delayq.connect(redisUrl);
  }

  @AfterAll
  static void stop() {
    if (delayq != null) {
      delayq.close();
    }
    if (ownRedis != null) {
      ownRedis.close();
    }
  }

  @Override
  List<String> connection() {
    return List.of("--redis", redisUrl);
  }

  @Override
  void seed(String queue, String id, Duration delay) {
    delayq.queue(queue).schedule(JobRequest.of("seeded " + id).withId(id).withDelay(delay));
  }

  @Override
  void claimOne(String queue) {
    claim(delayq.queue(queue));
  }

  @Override
  void claimAndAbandon(String queue) {
    await().atMost(Duration.ofSeconds(10))
        .until(() -> delayq.queue(queue).pull().claim(1, Duration.ofMillis(100), Duration.ofMillis(500)), jobs -> !jobs.isEmpty());
  }

  @Override
  void makeDead(String queue, String id, String error) {
    JobQueue q = delayq.queue(queue);
    q.schedule(JobRequest.of("doomed " + id).withId(id).withMaxAttempts(1));
    LeasedJob job = claim(q);
    q.pull().nack(job.id(), job.token(), null, error);
  }

  @Override
  List<String> queueNames() {
    return delayq.queueNames();
  }

  private static LeasedJob claim(JobQueue queue) {
    return await().atMost(Duration.ofSeconds(10))
        .until(() -> queue.pull().claim(1, Duration.ofMinutes(10), Duration.ofMillis(500)), jobs -> !jobs.isEmpty())
        .get(0);
  }
}
