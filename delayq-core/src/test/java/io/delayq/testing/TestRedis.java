package io.delayq.testing;

import io.delayq.embedded.RedisServerProcess;
import java.util.UUID;

/**
 * The Redis the suite runs against: the one named by {@code DELAYQ_TEST_REDIS} (CI points it at
 * the machine's Redis), or else a bundled {@code redis-server} started once for the whole JVM, so
 * that {@code mvn verify} needs nothing but a JDK and Maven. A named Redis that cannot be reached
 * fails the tests; it is never skipped.
 */
public final class TestRedis {
  private static final String ENV = "DELAYQ_TEST_REDIS";
  private static volatile String url;

  private TestRedis() {}

  public static synchronized String url() {
    if (url == null) {
      String configured = System.getenv(ENV);
      if (configured != null && !configured.isBlank()) {
        url = configured.trim();
      } else {
        // Stopped by RedisServerProcess's own shutdown hook when the test JVM exits.
        RedisServerProcess server = RedisServerProcess.builder().start();
        url = server.uri();
      }
    }
    return url;
  }

  /**
   * Removes queues a test made by the thousand, which hold no jobs, so that runs against a shared
   * Redis do not pile them up (each run would add thousands to every later queue list).
   */
  public static void forgetEmptyQueues(java.util.Collection<String> names) {
    io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create(url());
    try (var connection = client.connect()) {
      var redis = connection.sync();
      for (String name : names) {
        redis.del(io.delayq.internal.Keys.settings(name));
        redis.srem(io.delayq.internal.Keys.registry(), name);
      }
    } finally {
      client.shutdown();
    }
  }

  /** A queue name no other test (or earlier run against the same Redis) uses. */
  public static String uniqueQueue(String purpose) {
    return "test-" + purpose + "-" + UUID.randomUUID().toString().substring(0, 8);
  }
}
