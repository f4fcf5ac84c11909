package io.delayq.internal;

import io.delayq.RedisStatus;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Asks each master for a PING and its memory figures: the figures a health check shows. */
final class ServerProbe {
  private static final Logger log = LoggerFactory.getLogger(ServerProbe.class);

  private ServerProbe() {}

  static List<RedisStatus> probe(DelayqClient client, Ticker ticker) {
    RedisConnector connector = client.connector();
    List<RedisStatus> statuses = new ArrayList<>();
    for (String master : connector.masters()) {
      statuses.add(probe(client, master, commandsOf(connector, master), ticker));
    }
    return statuses;
  }

  private static RedisClusterAsyncCommands<byte[], byte[]> commandsOf(RedisConnector connector, String master) {
    if (!connector.isCluster()) {
      return RedisConnector.commands(connector.main());
    }
    int colon = master.lastIndexOf(':');
    @SuppressWarnings("unchecked")
    StatefulRedisClusterConnection<byte[], byte[]> cluster =
        (StatefulRedisClusterConnection<byte[], byte[]>) connector.main();
    StatefulRedisConnection<byte[], byte[]> node =
        cluster.getConnection(master.substring(0, colon), Integer.parseInt(master.substring(colon + 1)));
    return node.async();
  }

  private static RedisStatus probe(
      DelayqClient client, String master, RedisClusterAsyncCommands<byte[], byte[]> commands, Ticker ticker) {
    long start = ticker.nanoTime();
    client.await(commands.ping().toCompletableFuture(), null, null, 0);
    Duration roundTrip = Duration.ofNanos(ticker.nanoTime() - start);
    String info;
    try {
      info = client.await(commands.info("memory").toCompletableFuture(), null, null, 0);
    } catch (RuntimeException e) {
      // why: INFO may be denied to this ACL user; reachability is still known
      log.debug("INFO memory failed on {}: {}", master, e.toString());
      return new RedisStatus(master, roundTrip, -1, -1, null);
    }
    return new RedisStatus(
        master,
        roundTrip,
        number(field(info, "used_memory")),
        number(field(info, "maxmemory")),
        field(info, "maxmemory_policy"));
  }

  static String field(String info, String name) {
    for (String line : info.split("\r?\n")) {
      if (line.startsWith(name + ":")) {
        return line.substring(name.length() + 1).trim();
      }
    }
    return null;
  }

  private static long number(String value) {
    try {
      return value == null ? -1 : Long.parseLong(value);
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
