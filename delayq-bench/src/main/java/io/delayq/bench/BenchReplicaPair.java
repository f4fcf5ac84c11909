package io.delayq.bench;

import io.delayq.embedded.RedisServerProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The Redis of the durable scenario: a primary and one replica ({@code replicaof} the primary), two
 * {@code redis-server} child processes on 127.0.0.1 started from the same binary and with the same
 * settings as the single node ({@link BenchRedis#SETTINGS}, no persistence), plus a connection of the
 * benchmark's own to each: to the primary for {@code FLUSHALL}, to the replica to see it in sync.
 */
final class BenchReplicaPair implements RedisTarget, AutoCloseable {
  static final int REPLICAS = 1;
  /** Longest the replica may take to finish its first sync with the primary. */
  private static final Duration SYNC_TIMEOUT = Duration.ofSeconds(30);
  /** How long a FLUSHALL may take to reach the replica. */
  private static final Duration REPLICATION_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration PROBE_TIMEOUT = Duration.ofMinutes(5);
  private static final long POLL_MILLIS = 20;

  private final RedisServerProcess primary;
  private final RedisServerProcess replica;
  private final RedisClient client;
  private final StatefulRedisConnection<String, String> primaryProbe;
  private final StatefulRedisConnection<String, String> replicaProbe;

  private BenchReplicaPair(RedisServerProcess primary, RedisServerProcess replica) {
    this.primary = primary;
    this.replica = replica;
    this.client = RedisClient.create();
    try {
      this.primaryProbe = client.connect(probeUri(primary));
      this.replicaProbe = client.connect(probeUri(replica));
    } catch (RuntimeException e) {
      client.shutdown(0, 2, TimeUnit.SECONDS);
      throw e;
    }
  }

  private static RedisURI probeUri(RedisServerProcess server) {
    RedisURI uri = RedisURI.create(server.uri());
    uri.setTimeout(PROBE_TIMEOUT);
    return uri;
  }

  /**
   * Starts the primary, then its replica, from {@code binary}, and waits (at most 30 s) until the
   * replica reports {@code master_link_status:up}; stops both when that fails.
   */
  static BenchReplicaPair start(Path binary) throws InterruptedException {
    RedisServerProcess primary = server(binary).start();
    RedisServerProcess replica = null;
    BenchReplicaPair pair = null;
    try {
      replica = server(binary).setting("replicaof", "127.0.0.1", Integer.toString(primary.port())).start();
      pair = new BenchReplicaPair(primary, replica);
      pair.awaitInSync();
      return pair;
    } catch (RuntimeException | InterruptedException e) {
      try {
        if (pair != null) {
          pair.close();
        } else {
          if (replica != null) {
            replica.close();
          }
          primary.close();
        }
      } catch (RuntimeException closeFailed) {
        e.addSuppressed(closeFailed);
      }
      throw e;
    }
  }

  private static RedisServerProcess.Builder server(Path binary) {
    RedisServerProcess.Builder builder = RedisServerProcess.builder().binary(binary);
    BenchRedis.SETTINGS.forEach(builder::setting);
    return builder;
  }

  private void awaitInSync() throws InterruptedException {
    long deadline = System.nanoTime() + SYNC_TIMEOUT.toNanos();
    String status = "unknown";
    while (System.nanoTime() < deadline) {
      status = infoField(replicaProbe.sync().info("replication"), "master_link_status");
      if ("up".equals(status)) {
        return;
      }
      Thread.sleep(POLL_MILLIS);
    }
    throw new IllegalStateException("the replica on port " + replica.port() + " still has master_link_status:"
        + status + " after " + SYNC_TIMEOUT.toSeconds() + " s");
  }

  private static String infoField(String info, String field) {
    for (String line : info.split("\r?\n")) {
      if (line.startsWith(field + ":")) {
        return line.substring(field.length() + 1).trim();
      }
    }
    return "absent";
  }

  /** The primary's URL: delayq connects to it and WAITs for the replica there. */
  @Override
  public String uri() {
    return primary.uri();
  }

  /** Not collected: no table of the durable scenario needs Redis's counters. */
  @Override
  public RedisStats stats() {
    return null;
  }

  /**
   * FLUSHALL on the primary, then WAIT until the replica has applied it, so that the replica is not
   * still deleting the previous run's keys while the next one is measured.
   */
  @Override
  public void flushAll() {
    primaryProbe.sync().flushall();
    long acked = primaryProbe.sync().waitForReplication(REPLICAS, REPLICATION_TIMEOUT.toMillis());
    if (acked < REPLICAS) {
      throw new IllegalStateException("FLUSHALL reached " + acked + " of " + REPLICAS + " replicas within "
          + REPLICATION_TIMEOUT.toSeconds() + " s");
    }
  }

  /** Ports of the primary and the replica, for the log. */
  String describe() {
    return "primary on port " + primary.port() + ", replica on " + replica.port();
  }

  @Override
  public void close() {
    try {
      try {
        primaryProbe.close();
        replicaProbe.close();
        client.shutdown(0, 2, TimeUnit.SECONDS);
      } finally {
        replica.close();
      }
    } finally {
      primary.close();
    }
  }
}
