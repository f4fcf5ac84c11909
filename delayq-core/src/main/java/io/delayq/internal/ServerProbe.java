package io.delayq.internal;

import io.delayq.RedisNode;
import io.delayq.RedisStatus;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks each master for a PING and its memory figures, the figures a health check shows; and, for an
 * operator's page, each node for what INFO and CONFIG tell about it.
 */
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

  /** Every master, and on a cluster every replica Lettuce knows, as {@link RedisNode}s. */
  static List<RedisNode> nodes(DelayqClient client, Ticker ticker) {
    RedisConnector connector = client.connector();
    String mode = connector.isCluster() ? "cluster" : connector.isSentinel() ? "sentinel" : "standalone";
    Map<String, List<String>> slots = connector.isCluster() ? slotRanges(client) : Map.of();
    List<RedisNode> nodes = new ArrayList<>();
    for (String master : connector.masters()) {
      nodes.add(node(client, master, commandsOf(connector, master), mode, slots.getOrDefault(master, List.of()), ticker, true));
    }
    if (connector.isCluster()) {
      for (String replica : replicas(connector)) {
        try {
          nodes.add(node(client, replica, commandsOf(connector, replica), mode, List.of(), ticker, false));
        } catch (RuntimeException e) {
          // why: a replica that cannot be reached does not stop the masters' page; it is left out
          log.debug("replica {} did not answer: {}", replica, e.toString());
        }
      }
    }
    return nodes;
  }

  private static List<String> replicas(RedisConnector connector) {
    @SuppressWarnings("unchecked")
    StatefulRedisClusterConnection<byte[], byte[]> cluster =
        (StatefulRedisClusterConnection<byte[], byte[]>) connector.main();
    List<String> replicas = new ArrayList<>();
    for (RedisClusterNode node : cluster.getPartitions()) {
      if (node.is(RedisClusterNode.NodeFlag.REPLICA) && !node.is(RedisClusterNode.NodeFlag.FAIL)) {
        replicas.add(node.getUri().getHost() + ":" + node.getUri().getPort());
      }
    }
    return replicas;
  }

  /**
   * Each master's slot ranges, from {@code CLUSTER SLOTS}; from the slot map Lettuce last read
   * when this user may not run it.
   */
  private static Map<String, List<String>> slotRanges(DelayqClient client) {
    Map<String, List<String>> ranges = new TreeMap<>();
    try {
      List<Object> reply = client.await(client.async().clusterSlots().toCompletableFuture(), null, null, 0);
      List<long[]> found = new ArrayList<>();
      List<String> owners = new ArrayList<>();
      for (Object entry : reply) {
        List<?> e = (List<?>) entry;
        List<?> master = (List<?>) e.get(2);
        found.add(new long[] {(Long) e.get(0), (Long) e.get(1)});
        owners.add(QueueContext.text(master.get(0)) + ":" + master.get(1));
      }
      for (int i = 0; i < found.size(); i++) {
        long[] r = found.get(i);
        ranges.computeIfAbsent(owners.get(i), k -> new ArrayList<>()).add(r[0] == r[1] ? r[0] + "" : r[0] + "-" + r[1]);
      }
    } catch (RuntimeException e) {
      log.debug("CLUSTER SLOTS failed ({}); slot ranges from the client's slot map", e.toString());
      ranges.clear();
      @SuppressWarnings("unchecked")
      StatefulRedisClusterConnection<byte[], byte[]> cluster =
          (StatefulRedisClusterConnection<byte[], byte[]>) client.connector().main();
      for (RedisClusterNode node : cluster.getPartitions()) {
        if (node.is(RedisClusterNode.NodeFlag.UPSTREAM)) {
          ranges.put(node.getUri().getHost() + ":" + node.getUri().getPort(), compress(node.getSlots()));
        }
      }
    }
    ranges.replaceAll((k, v) -> v.stream().sorted(java.util.Comparator.comparingInt(ServerProbe::rangeStart)).toList());
    return ranges;
  }

  private static int rangeStart(String range) {
    int dash = range.indexOf('-');
    return Integer.parseInt(dash < 0 ? range : range.substring(0, dash));
  }

  /** Slot numbers as ranges: {@code [0, 1, 2, 7]} is {@code ["0-2", "7"]}. */
  static List<String> compress(List<Integer> slots) {
    List<Integer> sorted = slots.stream().sorted().toList();
    List<String> ranges = new ArrayList<>();
    int i = 0;
    while (i < sorted.size()) {
      int start = sorted.get(i);
      int end = start;
      while (i + 1 < sorted.size() && sorted.get(i + 1) == end + 1) {
        end = sorted.get(++i);
      }
      ranges.add(start == end ? Integer.toString(start) : start + "-" + end);
      i++;
    }
    return ranges;
  }

  private static RedisNode node(DelayqClient client, String address, RedisClusterAsyncCommands<byte[], byte[]> commands,
      String mode, List<String> slots, Ticker ticker, boolean master) {
    long start = ticker.nanoTime();
    client.await(commands.ping().toCompletableFuture(), null, null, 0);
    Duration roundTrip = Duration.ofNanos(ticker.nanoTime() - start);
    String info = "";
    try {
      info = client.await(commands.info().toCompletableFuture(), null, null, 0);
    } catch (RuntimeException e) {
      // why: INFO may be denied to this ACL user; reachability is still known
      log.debug("INFO failed on {}: {}", address, e.toString());
    }
    String policy = field(info, "maxmemory_policy");
    if (policy == null) {
      policy = config(client, commands, "maxmemory-policy", address);
    }
    String aof = field(info, "aof_enabled");
    boolean aofEnabled = aof != null ? aof.equals("1") : "yes".equals(config(client, commands, "appendonly", address));
    String role = field(info, "role");
    long lastSave = number(field(info, "rdb_last_save_time"));
    long uptime = number(field(info, "uptime_in_seconds"));
    return new RedisNode(
        address,
        role == null ? (master ? "master" : "replica") : role.equals("slave") ? "replica" : role,
        field(info, "redis_version"),
        mode,
        number(field(info, "used_memory")),
        number(field(info, "maxmemory")),
        policy,
        aofEnabled,
        config(client, commands, "save", address),
        lastSave > 0 ? Instant.ofEpochSecond(lastSave) : null,
        number(field(info, "connected_clients")),
        uptime >= 0 ? Duration.ofSeconds(uptime) : null,
        slots,
        roundTrip);
  }

  /** A CONFIG value, or null when this user may not read it (or the server hides CONFIG). */
  private static String config(DelayqClient client, RedisClusterAsyncCommands<byte[], byte[]> commands, String name,
      String address) {
    try {
      Map<String, String> values = client.await(commands.configGet(name).toCompletableFuture(), null, null, 0);
      return values == null ? null : values.get(name);
    } catch (RuntimeException e) {
      log.debug("CONFIG GET {} failed on {}: {}", name, address, e.toString());
      return null;
    }
  }
}
