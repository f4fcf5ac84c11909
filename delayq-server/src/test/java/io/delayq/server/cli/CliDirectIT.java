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
import org.junit.jupiter.api.Test;

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
  void seedSchedules(String queue, int count) {
    JobQueue q = delayq.queue(queue);
    for (int i = 0; i < count; i++) {
      q.schedules().set(io.delayq.Schedule.every(String.format("s%03d", i), Duration.ofHours(1)));
    }
  }

  @Override
  List<String> queueNames() {
    return delayq.queueNames();
  }

  /**
   * {@code delayq adopt --once} takes over a sorted set written the way a Python producer writes
   * one (scores in seconds, JSON members with an order id): due members become jobs due now,
   * future ones stay unless {@code --mode all}; the report counts them.
   */
  @Test
  void adoptOnceMovesASortedSetWrittenByAnotherProgramIntoAQueue() {
    String source = "legacy:" + queue;
    io.lettuce.core.RedisClient raw = io.lettuce.core.RedisClient.create(redisUrl.split(",")[0]);
    try (var c = raw.connect()) {
      long now = java.time.Instant.now().getEpochSecond();
      for (int i = 0; i < 20; i++) {
        c.sync().zadd(source, now - 5, "{\"orderId\":\"o-" + i + "\",\"action\":\"cancel\"}");
      }
      c.sync().zadd(source, now + 3600, "{\"orderId\":\"later\",\"action\":\"cancel\"}");

      Cli.Result moved = delayqOk("adopt", source, "--queue", queue, "--unit", "seconds", "--id-field", "orderId", "--once");
      org.assertj.core.api.Assertions.assertThat(moved.out()).contains("moved 20").contains("remaining in " + source + " 1");
      org.assertj.core.api.Assertions.assertThat(delayq.queue(queue).admin().stats().due()).isEqualTo(20);
      org.assertj.core.api.Assertions.assertThat(delayq.queue(queue).get("o-7").orElseThrow().payloadAsString())
          .isEqualTo("{\"orderId\":\"o-7\",\"action\":\"cancel\"}");
      org.assertj.core.api.Assertions.assertThat(c.sync().zcard(source)).isEqualTo(1);

      Cli.Result all = delayqOk("adopt", source, "--queue", queue, "--id-field", "orderId", "--mode", "all", "--once");
      org.assertj.core.api.Assertions.assertThat(all.out()).contains("moved 1").contains("(scores in seconds)");
      org.assertj.core.api.Assertions.assertThat(c.sync().exists(source)).isZero();
      org.assertj.core.api.Assertions.assertThat(delayq.queue(queue).get("later").orElseThrow().runAt())
          .isEqualTo(java.time.Instant.ofEpochSecond(now + 3600));

      Cli.Result badUnit = delayq("adopt", source, "--queue", queue, "--unit", "hours", "--once");
      assertExit(badUnit, 2);
      org.assertj.core.api.Assertions.assertThat(badUnit.err()).startsWith("delayq adopt: --unit").contains("seconds");
      c.sync().set(source + ":string", "not a sorted set");
      Cli.Result wrongType = delayq("adopt", source + ":string", "--queue", queue, "--once");
      assertExit(wrongType, 2);
      org.assertj.core.api.Assertions.assertThat(wrongType.err()).contains("sorted set");
      org.assertj.core.api.Assertions.assertThat(c.sync().get(source + ":string")).isEqualTo("not a sorted set");
    } finally {
      raw.shutdown();
    }
  }

  /** Without --once the bridge runs until SIGTERM, moving members written after it started, and says what it did. */
  @Test
  void adoptRunsUntilStoppedAndMovesMembersWrittenMeanwhile() throws Exception {
    String source = "legacy-live:" + queue;
    java.nio.file.Path out = java.nio.file.Files.createTempFile("delayq-adopt-", ".txt");
    Process process = new ProcessBuilder(java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-jar", ServerProcess.jar().toString(), "adopt", source, "--queue", queue, "--unit", "milliseconds",
        "--redis", redisUrl).redirectErrorStream(true).redirectOutput(out.toFile()).start();
    io.lettuce.core.RedisClient raw = io.lettuce.core.RedisClient.create(redisUrl.split(",")[0]);
    try (var c = raw.connect()) {
      await().atMost(Duration.ofSeconds(30)).until(() -> java.nio.file.Files.readString(out).contains("Ctrl-C stops"));
      c.sync().zadd(source, System.currentTimeMillis(), "reminder for 42");
      await().atMost(Duration.ofSeconds(10)).until(() -> delayq.queue(queue).admin().stats().scheduled() == 1);
      org.assertj.core.api.Assertions.assertThat(c.sync().zcard(source)).isZero();
      process.destroy();
      org.assertj.core.api.Assertions.assertThat(process.waitFor(20, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
      org.assertj.core.api.Assertions.assertThat(java.nio.file.Files.readString(out)).contains("stopped: moved 1");
    } finally {
      process.destroyForcibly();
      raw.shutdown();
      java.nio.file.Files.deleteIfExists(out);
    }
  }

  private static LeasedJob claim(JobQueue queue) {
    return await().atMost(Duration.ofSeconds(10))
        .until(() -> queue.pull().claim(1, Duration.ofMinutes(10), Duration.ofMillis(500)), jobs -> !jobs.isEmpty())
        .get(0);
  }
}
