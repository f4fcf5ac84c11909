package io.delayq.server.web.browser;

import io.delayq.Delayq;
import io.delayq.embedded.RedisServerProcess;
import io.delayq.server.http.ApiServer;
import io.delayq.server.http.HttpSettings;
import io.delayq.server.testing.ServerProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A delayq-server with its dashboard in this JVM, on the shared test Redis ({@code
 * DELAYQ_TEST_REDIS}, else a redis-server of its own), with a full and a read-only token.
 * Its queues, made with {@link #newQueue}, are deleted when it closes.
 */
final class BrowserDashboard implements AutoCloseable {
  static final String TOKEN = "browser-full-" + UUID.randomUUID();
  static final String READ_ONLY_TOKEN = "browser-read-only-" + UUID.randomUUID();

  private final Delayq delayq;
  private final ApiServer api;
  private final String prefix;
  private final List<String> queues = new CopyOnWriteArrayList<>();

  private BrowserDashboard(Delayq delayq, ApiServer api, String prefix) {
    this.delayq = delayq;
    this.api = api;
    this.prefix = prefix;
  }

  /** A server at the root, {@code http://127.0.0.1:<port>/}. */
  private static String ownRedisUrl;

  /** DELAYQ_TEST_REDIS, else one redis-server of this run's own, as the README's `mvn verify` promises. */
  private static synchronized String testRedis() {
    String url = ServerProcess.testRedis();
    if (url != null) {
      return url;
    }
    if (ownRedisUrl == null) {
      RedisServerProcess own = RedisServerProcess.builder().start();
      Runtime.getRuntime().addShutdownHook(new Thread(own::close));
      ownRedisUrl = own.uri();
    }
    return ownRedisUrl;
  }

  static BrowserDashboard start() {
    return start(null);
  }

  /** A server whose {@code --base-path} is {@code basePath} (null: none). */
  static BrowserDashboard start(String basePath) {
    String redis = testRedis();
    // why: short heartbeats and history flushes, so the Workers and History pages show this run's work within a second
    Delayq delayq = Delayq.builder()
        .redisUrl(redis)
        .heartbeatInterval(Duration.ofMillis(500))
        .historyFlushInterval(Duration.ofMillis(500))
        .build();
    HttpSettings settings = HttpSettings.of("127.0.0.1", 0, TOKEN).withReadOnlyToken(READ_ONLY_TOKEN);
    if (basePath != null) {
      settings = settings.withBasePath(basePath);
    }
    try {
      return new BrowserDashboard(delayq, ApiServer.start(delayq, settings, 64), basePath == null ? "" : basePath);
    } catch (IOException e) {
      delayq.close();
      throw new UncheckedIOException(e);
    }
  }

  /** The client the server runs on, for making data and reading what the browser changed. */
  Delayq delayq() {
    return delayq;
  }

  /** {@code http://127.0.0.1:<port>} */
  String origin() {
    return "http://127.0.0.1:" + api.address().getPort();
  }

  int port() {
    return api.address().getPort();
  }

  /** {@code path} (starting with '/') under the server's base path, as an absolute URL. */
  String url(String path) {
    return origin() + prefix + path;
  }

  /**
   * A queue name no other test uses. It starts with {@code --}, which sorts before the letters and
   * digits other tests' queues start with, so it is on the Queues page's first page.
   */
  String newQueue(String what) {
    String name = "--browser-" + what + "-" + UUID.randomUUID().toString().substring(0, 8);
    queues.add(name);
    return name;
  }

  @Override
  public void close() {
    try {
      api.shutdown(Duration.ofSeconds(2));
      for (String queue : queues) {
        delayq.existingQueue(queue).ifPresent(q -> q.admin().delete(true));
      }
    } finally {
      delayq.close();
    }
  }
}
