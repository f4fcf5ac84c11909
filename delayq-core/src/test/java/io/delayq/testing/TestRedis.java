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

  /**
   * The keys matching {@code pattern}, read with {@code SCAN}. Not {@code KEYS}: Lettuce 7 declares
   * it as {@code keys(String)} and Lettuce 6 as {@code keys(K)}, so a call compiled against one
   * fails with {@code NoSuchMethodError} on the other, and these tests also run on Lettuce 6.8
   * (delayq-compat).
   */
  public static java.util.List<String> keysMatching(
      io.lettuce.core.api.StatefulRedisConnection<String, String> connection, String pattern) {
    java.util.List<String> keys = new java.util.ArrayList<>();
    io.lettuce.core.ScanArgs args = io.lettuce.core.ScanArgs.Builder.matches(pattern).limit(1000);
    io.lettuce.core.KeyScanCursor<String> cursor = connection.sync().scan(args);
    keys.addAll(cursor.getKeys());
    while (!cursor.isFinished()) {
      cursor = connection.sync().scan(cursor, args);
      keys.addAll(cursor.getKeys());
    }
    return keys;
  }

  /** A queue name no other test (or earlier run against the same Redis) uses. */
  public static String uniqueQueue(String purpose) {
    return "test-" + purpose + "-" + UUID.randomUUID().toString().substring(0, 8);
  }
}
