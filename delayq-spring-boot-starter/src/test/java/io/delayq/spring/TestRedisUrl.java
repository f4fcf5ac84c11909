package io.delayq.spring;

import io.delayq.embedded.RedisServerProcess;

/**
 * The Redis the starter's tests use: the one named by {@code DELAYQ_TEST_REDIS} (CI points it at
 * the machine's Redis), or else a bundled {@code redis-server} started once for the whole JVM. A
 * named Redis that cannot be reached fails the tests; it is never skipped.
 */
public final class TestRedisUrl {
  private static volatile String url;

  private TestRedisUrl() {}

  public static synchronized String get() {
    if (url == null) {
      String configured = System.getenv("DELAYQ_TEST_REDIS");
      if (configured != null && !configured.isBlank()) {
        url = configured.trim();
      } else {
        // Stopped by RedisServerProcess's own shutdown hook when the test JVM exits.
        url = RedisServerProcess.builder().start().uri();
      }
    }
    return url;
  }
}
