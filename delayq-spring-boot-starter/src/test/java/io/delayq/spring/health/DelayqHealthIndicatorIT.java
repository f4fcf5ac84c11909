package io.delayq.spring.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.Delayq;
import io.delayq.JobQueue;
import io.delayq.JobRequest;
import io.delayq.WorkerOptions;
import io.delayq.Workers;
import io.delayq.embedded.RedisServerProcess;
import io.delayq.spring.TestRedisUrl;
import io.delayq.spring.autoconfigure.DelayqAutoConfiguration;
import io.delayq.spring.autoconfigure.DelayqHealthAutoConfiguration;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The delayq health indicator's states against real Redis servers: UP with its figures, DOWN when
 * Redis goes away (a redis-server started and stopped here, by its pid), DOWN when a queue has
 * due jobs nobody claims, UP with a warning when that queue is paused, and the memory checks.
 */
class DelayqHealthIndicatorIT {
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(DelayqAutoConfiguration.class, DelayqHealthAutoConfiguration.class));

  private static String uniqueQueue(String purpose) {
    return "health-" + purpose + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  private static Health health(AssertableApplicationContext context) {
    return context.getBean(DelayqHealthIndicator.class).health();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> detail(Health health, String... path) {
    Map<String, Object> node = health.getDetails();
    for (String key : path) {
      assertThat(node).containsKey(key);
      node = (Map<String, Object>) node.get(key);
    }
    return node;
  }

  @Test
  void upWithTheFiguresOfRedisAndOfEveryWatchedQueue() {
    String worked = uniqueQueue("worked");
    String missing = uniqueQueue("missing");
    runner
        .withPropertyValues("delayq.redis.url=" + TestRedisUrl.get(), "delayq.health.queues=" + missing)
        .run(context -> {
          Delayq delayq = context.getBean(Delayq.class);
          try (Workers workers = delayq.queue(worked).startWorkers(job -> {}, WorkerOptions.builder().build())) {
            Health health = health(context);

            assertThat(health.getStatus()).isEqualTo(Status.UP);
            Map<String, Object> redis = detail(health, "redis");
            assertThat(redis).hasSize(1);
            @SuppressWarnings("unchecked")
            Map<String, Object> node = (Map<String, Object>) redis.values().iterator().next();
            assertThat((Double) node.get("pingMillis")).isPositive();
            assertThat((Long) node.get("usedMemory")).isPositive();
            assertThat(node).containsKeys("maxMemory", "maxmemoryPolicy");
            assertThat(detail(health, "queues", worked))
                .containsEntry("workersHere", true)
                .containsEntry("stuck", false)
                .containsEntry("due", 0L);
            assertThat(detail(health, "queues", missing)).containsEntry("exists", false).containsEntry("workersHere", false);
            assertThat(delayq.existingQueue(missing)).as("health never creates a queue").isEmpty();
          }
        });
  }

  @Test
  void downWhenAQueueHasDueJobsThatNobodyClaims() {
    String queue = uniqueQueue("stuck");
    runner
        .withPropertyValues("delayq.redis.url=" + TestRedisUrl.get(), "delayq.health.queues=" + queue)
        .run(context -> {
          context.getBean(Delayq.class).queue(queue).schedule(JobRequest.of("x"));
          // the default threshold, 30 sweeps of 1 s, is far away
          assertThat(health(context).getStatus()).isEqualTo(Status.UP);
        });
    runner
        .withPropertyValues(
            "delayq.redis.url=" + TestRedisUrl.get(),
            "delayq.health.queues=" + queue,
            "delayq.health.sweep-interval=100ms",
            "delayq.health.stuck-after-sweeps=3")
        .run(context -> {
          await().atMost(Duration.ofSeconds(5)).until(() -> health(context).getStatus().equals(Status.DOWN));
          Health health = health(context);
          assertThat(detail(health, "queues", queue)).containsEntry("stuck", true).containsEntry("due", 1L);
          assertThat((List<String>) health.getDetails().get("problems"))
              .anySatisfy(p -> assertThat(p).contains("'" + queue + "' is stuck").contains("PT0.3S"));

          // a worker that claims the job ends it
          try (Workers workers =
              context.getBean(Delayq.class).queue(queue).startWorkers(job -> {}, WorkerOptions.builder().build())) {
            await().atMost(Duration.ofSeconds(5)).until(() -> health(context).getStatus().equals(Status.UP));
          }
        });
  }

  @Test
  void aPausedQueueWithDueJobsIsNotStuckButWarned() {
    String queue = uniqueQueue("paused");
    runner
        .withPropertyValues(
            "delayq.redis.url=" + TestRedisUrl.get(),
            "delayq.health.queues=" + queue,
            "delayq.health.sweep-interval=50ms",
            "delayq.health.stuck-after-sweeps=2")
        .run(context -> {
          JobQueue jobs = context.getBean(Delayq.class).queue(queue);
          jobs.schedule(JobRequest.of("x"));
          jobs.admin().pause();
          await().atMost(Duration.ofSeconds(5))
              .until(() -> jobs.admin().stats().oldestDueAge().compareTo(Duration.ofMillis(200)) > 0);

          Health health = health(context);

          assertThat(health.getStatus()).isEqualTo(Status.UP);
          assertThat(detail(health, "queues", queue)).containsEntry("paused", true).containsEntry("stuck", false);
          assertThat((List<String>) health.getDetails().get("warnings"))
              .anySatisfy(w -> assertThat(w).contains("'" + queue + "' is paused with 1 due job"));
        });
  }

  @Test
  void downWhileRedisIsAwayAndUpAgainWhenItReturns() {
    try (RedisServerProcess redis = RedisServerProcess.builder().start()) {
      runner
          .withPropertyValues("delayq.redis.url=" + redis.uri(), "delayq.command-timeout=2s")
          .run(context -> {
            assertThat(health(context).getStatus()).isEqualTo(Status.UP);

            redis.stop();

            await().atMost(Duration.ofSeconds(10)).until(() -> health(context).getStatus().equals(Status.DOWN));
            assertThat((String) health(context).getDetails().get("error")).startsWith("Redis does not answer");

            redis.restart();
            await().atMost(Duration.ofSeconds(20)).until(() -> health(context).getStatus().equals(Status.UP));
          });
    }
  }

  @Test
  void memoryNearMaxmemoryIsDownAndAnEvictingPolicyIsAWarningUnlessRefused() {
    try (RedisServerProcess redis = RedisServerProcess.builder().start()) {
      RedisClient client = RedisClient.create(redis.uri());
      try (StatefulRedisConnection<String, String> connection = client.connect()) {
        var commands = connection.sync();
        // why: a threshold of one half leaves room for Redis's own memory use to shrink between
        // reading it and the check, so the check sees a nearly full Redis whatever it freed
        runner.withPropertyValues("delayq.redis.url=" + redis.uri(), "delayq.health.memory-threshold=0.5").run(context -> {
          long used = Long.parseLong(infoField(commands.info("memory"), "used_memory"));
          commands.configSet("maxmemory", String.valueOf(used + used / 50));

          Health nearlyFull = health(context);
          assertThat(nearlyFull.getStatus()).isEqualTo(Status.DOWN);
          assertThat((List<String>) nearlyFull.getDetails().get("problems"))
              .anySatisfy(p -> assertThat(p).contains("of its maxmemory").contains("refuse new jobs"));

          commands.configSet("maxmemory", String.valueOf(1L << 30));
          commands.configSet("maxmemory-policy", "allkeys-lru");
          Health evicting = health(context);
          assertThat(evicting.getStatus()).isEqualTo(Status.UP);
          assertThat((List<String>) evicting.getDetails().get("warnings"))
              .anySatisfy(w -> assertThat(w).contains("maxmemory-policy allkeys-lru"));
        });
        runner
            .withPropertyValues("delayq.redis.url=" + redis.uri(), "delayq.refuse-evicting-redis=true")
            .withBean(Delayq.class, () -> Delayq.connect(redis.uri()))
            .run(context -> assertThat(health(context).getStatus()).isEqualTo(Status.DOWN));
      } finally {
        client.shutdown();
      }
    }
  }

  private static String infoField(String info, String name) {
    for (String line : info.split("\r?\n")) {
      if (line.startsWith(name + ":")) {
        return line.substring(name.length() + 1).trim();
      }
    }
    throw new AssertionError(name + " not in INFO");
  }
  /**
   * A Redis that hangs (stopped with SIGSTOP: the socket stays open and nothing answers) must make
   * the indicator DOWN promptly. It waits for {@code delayq.command-timeout} (10 s by default, a
   * sensible bound for the application's own calls): every actuator request, and every Kubernetes
   * probe, then holds a server thread for 10 s, and probes with a shorter timeout see no answer at
   * all rather than DOWN.
   */
  @Test
  void aHangingRedisIsReportedDownWithinTheHealthTimeoutWhateverTheCommandTimeout() throws Exception {
    try (RedisServerProcess redis = RedisServerProcess.builder().start()) {
      runner.withPropertyValues("delayq.redis.url=" + redis.uri(), "delayq.health.timeout=1s").run(context -> {
        assertThat(health(context).getStatus()).isEqualTo(Status.UP);
        signal(redis.pid(), "STOP");
        try {
          long started = System.nanoTime();
          Health hung = health(context);
          long tookMs = (System.nanoTime() - started) / 1_000_000;
          assertThat(hung.getStatus()).isEqualTo(Status.DOWN);
          assertThat(tookMs).as("time to report a hanging Redis").isBetween(1000L, 2000L);
          assertThat((String) hung.getDetails().get("error")).contains("delayq.health.timeout");
          // a second check while the first still waits on Redis holds no second thread
          assertThat(health(context).getStatus()).isEqualTo(Status.DOWN);
          assertThat(Thread.getAllStackTraces().keySet().stream()
              .filter(t -> t.getName().equals("delayq-health")).count()).isEqualTo(1);
        } finally {
          signal(redis.pid(), "CONT");
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> health(context).getStatus().equals(Status.UP));
      });
    }
  }

  private static void signal(long pid, String signal) throws Exception {
    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
    assertThat(kill.waitFor()).as("kill -%s %d", signal, pid).isZero();
  }
}
