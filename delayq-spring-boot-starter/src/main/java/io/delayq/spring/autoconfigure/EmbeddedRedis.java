package io.delayq.spring.autoconfigure;

import io.delayq.embedded.RedisServerProcess;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;

/**
 * A redis-server of the application's own, started on first need: only when the {@link Delayq}
 * client finds no Redis configured, so an application with {@code delayq-embedded} on its class
 * path and a real Redis configured never starts one. It is locked down as the server's embedded
 * Redis is (random password, loopback only, CONFIG/DEBUG/MODULE disabled) and runs with AOF on.
 * Destroyed after the client, which depends on it.
 */
final class EmbeddedRedis implements DisposableBean {
  private static final Logger log = LoggerFactory.getLogger(EmbeddedRedis.class);
  private static final Pattern VERSION = Pattern.compile("v=(\\S+)");

  private final Path dataDir;
  private RedisServerProcess server;

  EmbeddedRedis(Path dataDir) {
    this.dataDir = dataDir;
  }

  synchronized RedisTarget start() {
    if (server == null) {
      RedisServerProcess.Builder builder = RedisServerProcess.builder().lockedDown(true).appendOnly(true);
      if (dataDir != null) {
        builder.dataDir(dataDir.toAbsolutePath());
      }
      server = builder.start();
      log.warn(
          "no Redis configured (delayq.redis.url, spring.data.redis.*): started an embedded redis-server {} for"
              + " development on 127.0.0.1:{}, data in {}{}. Configure a Redis for production.",
          versionNumber(server.version()), server.port(), server.dataDir(),
          dataDir == null ? " (deleted when the application stops; set delayq.redis.embedded.data-dir to keep it)" : "");
    }
    return new RedisTarget(server.uriWithPassword(), "the embedded Redis (delayq.redis.embedded)");
  }

  /** "6.2.11" out of redis-server's "Redis server v=6.2.11 sha=… malloc=…". */
  private static String versionNumber(String banner) {
    Matcher m = VERSION.matcher(banner);
    return m.find() ? m.group(1) : banner;
  }

  /** The server's process id, or -1 before it was needed. */
  synchronized long pid() {
    return server == null ? -1 : server.pid();
  }

  @Override
  public synchronized void destroy() {
    if (server != null) {
      server.close();
    }
  }
}
