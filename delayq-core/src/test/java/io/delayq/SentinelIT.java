package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.delayq.embedded.RedisSentinelProcesses;
import io.delayq.embedded.RedisServerProcess;
import io.delayq.testing.TestRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * delayq through Redis Sentinel, without a failover (that is {@link SentinelFailoverIT}): a
 * password-protected primary and replica and three Sentinels without a password, started on
 * loopback for this class and stopped by pid; URLs that are wrong in each way.
 */
class SentinelIT {
  private static final String PASSWORD = "s3cret-data";
  private static RedisSentinelProcesses redis;

  @BeforeAll
  static void start() {
    redis = RedisSentinelProcesses.builder().password(PASSWORD).start();
  }

  @AfterAll
  static void stop() {
    if (redis != null) {
      redis.close();
    }
  }

  /** {@code redis-sentinel://:<password>@<sentinels>#mymaster}. */
  private static String url() {
    return redis.url().replace("redis-sentinel://", "redis-sentinel://:" + PASSWORD + "@");
  }

  @Test
  void malformedSentinelUrlsAreRefusedSayingWhatIsWrongAndTheExpectedForm() {
    assertThatThrownBy(() -> Delayq.connect("redis-sentinel://127.0.0.1:26379,127.0.0.1:26380"))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("names no master")
        .hasMessageContaining("redis-sentinel://[[user:]password@]host1[:port1][,host2[:port2]...][/db]#masterName");
    assertThatThrownBy(() -> Delayq.connect("redis-sentinel://127.0.0.1:26379,127.0.0.1:26380#"))
        .isInstanceOf(InvalidRequestException.class).hasMessageContaining("names no master");
    assertThatThrownBy(() -> Delayq.connect("redis-sentinel://127.0.0.1:26379,127.0.0.1:x26#mymaster"))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("Sentinel '127.0.0.1:x26'")
        .hasMessageContaining("has port 'x26'; a port is a number from 1 to 65535")
        .hasMessageContaining("#masterName");
    assertThatThrownBy(() -> Delayq.connect("redis-sentinel://127.0.0.1:70000#mymaster"))
        .isInstanceOf(InvalidRequestException.class).hasMessageContaining("has port '70000'");
    assertThatThrownBy(() -> Delayq.connect("redis-sentinel://127.0.0.1:26379,,127.0.0.1:26380#mymaster"))
        .isInstanceOf(InvalidRequestException.class).hasMessageContaining("empty Sentinel between commas");
    assertThatThrownBy(() -> Delayq.connect("redis-sentinel://127.0.0.1:26379/one#mymaster"))
        .isInstanceOf(InvalidRequestException.class).hasMessageContaining("database 'one', which is not a number");
    assertThatThrownBy(() -> Delayq.connect("redis://127.0.0.1:6379,redis-sentinel://127.0.0.1:26379#mymaster"))
        .isInstanceOf(InvalidRequestException.class).hasMessageContaining("mixes a Sentinel URL with other URLs");
    // The password never appears in a message.
    assertThatThrownBy(() -> Delayq.connect("redis-sentinel://:hunter2@127.0.0.1:x#m"))
        .isInstanceOf(InvalidRequestException.class).hasMessageNotContaining("hunter2");
    // A plain URL's message names the Sentinel form too.
    assertThatThrownBy(() -> Delayq.connect("sentinel://127.0.0.1:26379#mymaster"))
        .isInstanceOf(InvalidRequestException.class).hasMessageContaining("redis-sentinel://");
  }

  @Test
  void aMasterNameNoSentinelKnowsIsReportedWithTheNamesTheyDo() {
    String wrong = url().replace("#" + redis.masterName(), "#mymastr");
    assertThatThrownBy(() -> Delayq.builder().redisUrl(wrong).commandTimeout(Duration.ofSeconds(2)).build())
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("names master 'mymastr'")
        .hasMessageContaining("monitor only '" + redis.masterName() + "'")
        .hasMessageContaining("after '#'")
        .hasMessageNotContaining(PASSWORD);
  }

  @Test
  void unreachableSentinelsAreAnUnavailableRedisNotABadUrl() {
    String nowhere = "redis-sentinel://127.0.0.1:" + closedPort() + ",127.0.0.1:" + closedPort() + "#mymaster";
    assertThatThrownBy(() -> Delayq.builder().redisUrl(nowhere).commandTimeout(Duration.ofSeconds(2)).build())
        .isInstanceOf(RedisUnavailableException.class)
        .hasMessageContaining("cannot connect to Redis at " + nowhere);
  }

  @Test
  void aWrongDataNodePasswordIsRefusedAsSuch() {
    String wrong = url().replace(PASSWORD, "not-it");
    assertThatThrownBy(() -> Delayq.builder().redisUrl(wrong).commandTimeout(Duration.ofSeconds(2)).build())
        .isInstanceOf(RedisUnavailableException.class)
        .hasMessageContaining("user and password")
        .hasMessageNotContaining("not-it");
  }

  @Test
  void jobsRunOnTheMasterAndWakeUpsArriveThroughIt() {
    RedisServerProcess master = redis.master();
    try (Delayq producer = Delayq.connect(url()); Delayq worker = Delayq.connect(url())) {
      JobQueue queue = producer.queue(TestRedis.uniqueQueue("sentinel"), 4);
      Map<String, Integer> delivered = new ConcurrentHashMap<>();
      // a sweep far longer than the test: only a wake-up message brings these jobs in time
      try (Workers workers = worker.queue(queue.name()).startWorkers(
          job -> delivered.merge(job.id(), 1, Integer::sum),
          WorkerOptions.builder().concurrency(4).sweepInterval(Duration.ofMinutes(1)).build())) {
        await().atMost(Duration.ofSeconds(5)).until(() -> subscribers(master, "dq:" + queue.name() + ":wake") > 0);
        for (int i = 0; i < 200; i++) {
          queue.schedule(JobRequest.of("p" + i).withId("job-" + i).withDelay(Duration.ofMillis(i % 50)));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> delivered.size() == 200);
      }
      assertThat(delivered.values()).allMatch(n -> n == 1);
      assertThat(queue.admin().stats().scheduled()).isZero();
      // everything went to the master the Sentinels name, by its own connections
      assertThat(clientNames(master)).contains("delayq-producer", "delayq-worker", "delayq-wakeup");
      assertThat(queue.get("job-0")).isEmpty();
    }
  }

  @Test
  void durableSchedulesWaitForTheMastersReplica() {
    try (Delayq durable = Delayq.builder().redisUrl(url()).waitForReplicas(1, Duration.ofSeconds(2)).build();
        Delayq tooDemanding = Delayq.builder().redisUrl(url()).waitForReplicas(2, Duration.ofMillis(200)).build()) {
      String name = TestRedis.uniqueQueue("sentinel-durable");
      ScheduledJob job = durable.queue(name).schedule(JobRequest.of("x").withId("d1").withDelay(Duration.ofHours(1)));
      assertThat(job.id()).isEqualTo("d1");
      RedisServerProcess replica = redis.dataNodes().stream().filter(n -> n != redis.master()).findFirst().orElseThrow();
      assertThat(exists(replica, "{dq:" + name + ":0}")).as("the job is on the replica when schedule returns").isTrue();
      assertThatThrownBy(() -> tooDemanding.queue(name).schedule(JobRequest.of("y").withId("d2")))
          .isInstanceOf(NotReplicatedException.class)
          .hasMessageContaining("d2");
    }
  }

  @Test
  void anEvictingMasterIsFoundAndNamedByItsAddress() {
    RedisServerProcess master = redis.master();
    config(master, "allkeys-lru");
    try {
      assertThatThrownBy(() -> Delayq.builder().redisUrl(url()).refuseEvictingRedis(true).build())
          .isInstanceOf(QueueConfigurationException.class)
          .hasMessageContaining("Redis at 127.0.0.1:" + master.port() + " has maxmemory-policy 'allkeys-lru'");
    } finally {
      config(master, "noeviction");
    }
    try (Delayq fine = Delayq.builder().redisUrl(url()).refuseEvictingRedis(true).build()) {
      assertThat(fine.isClosed()).isFalse();
    }
  }

  @Test
  void sentinelsWithTheDataNodesPasswordAcceptTheUrlsPasswordToo() {
    try (RedisSentinelProcesses guarded =
            RedisSentinelProcesses.builder().password("same-pw").sentinelPassword("same-pw").start();
        Delayq delayq = Delayq.connect(guarded.url().replace("redis-sentinel://", "redis-sentinel://:same-pw@"))) {
      JobQueue queue = delayq.queue(TestRedis.uniqueQueue("sentinel-pw"));
      queue.schedule(JobRequest.of("x").withId("a"));
      assertThat(queue.pull().claim(1, Duration.ofSeconds(5))).extracting(LeasedJob::id).containsExactly("a");
      // without the password, the Sentinels refuse the connection
      assertThatThrownBy(() -> Delayq.builder().redisUrl(guarded.url()).commandTimeout(Duration.ofSeconds(2)).build())
          .isInstanceOf(RedisUnavailableException.class);
    }
  }

  @Test
  void sentinelsOfTheBundledRedis62TakeTheUrlsPasswordToo() {
    try (RedisSentinelProcesses old =
            RedisSentinelProcesses.builder().binary(RedisServerProcess.bundledBinary()).password(PASSWORD).start();
        Delayq delayq = Delayq.connect(old.url().replace("redis-sentinel://", "redis-sentinel://:" + PASSWORD + "@"))) {
      assertThat(old.master().version()).startsWith("Redis server v=6.2");
      JobQueue queue = delayq.queue(TestRedis.uniqueQueue("sentinel-62"));
      queue.schedule(JobRequest.of("x").withId("a"));
      assertThat(queue.pull().claim(1, Duration.ofSeconds(5))).extracting(LeasedJob::id).containsExactly("a");
    }
  }

  private static long subscribers(RedisServerProcess node, String channel) {
    return withConnection(node, c -> {
      Long n = c.sync().pubsubNumsub(channel).get(channel);
      return n == null ? 0L : n;
    });
  }

  static List<String> clientNames(RedisServerProcess node) {
    return withConnection(node, c -> c.sync().clientList().lines()
        .map(line -> line.replaceAll(".* name=(\\S*) .*", "$1"))
        .filter(name -> !name.isEmpty())
        .toList());
  }

  /** CLIENT LIST of the node, for messages. */
  static String clientList(RedisServerProcess node) {
    return withConnection(node, c -> c.sync().clientList());
  }

  private static boolean exists(RedisServerProcess node, String hashTag) {
    return withConnection(node, c -> !TestRedis.keysMatching(c, hashTag + "*").isEmpty());
  }

  private static void config(RedisServerProcess node, String policy) {
    withConnection(node, c -> c.sync().configSet("maxmemory-policy", policy));
  }

  private static <T> T withConnection(
      RedisServerProcess node, java.util.function.Function<StatefulRedisConnection<String, String>, T> body) {
    RedisClient client = RedisClient.create(node.uriWithPassword());
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      return body.apply(connection);
    } finally {
      client.shutdown();
    }
  }

  private static int closedPort() {
    try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
