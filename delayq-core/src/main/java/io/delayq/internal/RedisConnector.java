package io.delayq.internal;

import io.delayq.InvalidRequestException;
import io.delayq.RedisUnavailableException;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens connections to one Redis, to a Redis Cluster, or to the master that Redis Sentinels name;
 * the rest of delayq sees the same async command interface in each case. Whether a server is a
 * cluster is asked of the server itself ({@code INFO cluster}), so one URL is enough for both; a
 * Sentinel URL ({@code redis-sentinel://}) says so itself. Through Sentinel, every connection is a
 * plain one to the master: Lettuce asks the Sentinels for its address at each (re)connect, and a
 * {@link SentinelWatch} moves connections that stay up after a failover.
 */
final class RedisConnector {
  private static final Logger log = LoggerFactory.getLogger(RedisConnector.class);
  /**
   * How often the cluster map is re-read even when nothing seems wrong. A failover is noticed
   * sooner through the adaptive triggers (MOVED replies, reconnect attempts).
   */
  static final Duration TOPOLOGY_REFRESH = Duration.ofSeconds(2);

  /** How often the Sentinels are asked where the master is. */
  static final Duration SENTINEL_CHECK = Duration.ofSeconds(1);

  private final RedisClient standalone;
  private final RedisClusterClient cluster;
  private final RedisURI firstUri;
  /** Set when the master is found through Sentinels. */
  private SentinelWatch sentinel;
  /** The first connection, kept as the main one: for a single Redis it is the one the probe used. */
  private StatefulConnection<byte[], byte[]> first;
  private final Map<String, ScriptRunner> nodeWriters = new ConcurrentHashMap<>();
  /** Opened with the first durable schedule; see {@link #writerFor}. */
  private StatefulConnection<byte[], byte[]> durable;

  private RedisConnector(RedisClient standalone, RedisClusterClient cluster, RedisURI firstUri) {
    this.standalone = standalone;
    this.cluster = cluster;
    this.firstUri = firstUri;
  }

  /**
   * Connects to the first URL, asks whether it is a cluster node, and for a cluster opens a
   * cluster client seeded with every URL.
   *
   * @throws RuntimeException Lettuce's failure when the first server cannot be reached
   */
  static RedisConnector open(ClientResources resources, List<RedisURI> uris, ClientOptions options) {
    RedisURI firstUri = uris.get(0);
    if (RedisUrls.isSentinel(firstUri)) {
      return openThroughSentinel(resources, firstUri, options);
    }
    RedisClient probe = RedisClient.create(resources, firstUri);
    probe.setOptions(options);
    StatefulRedisConnection<byte[], byte[]> connection;
    try {
      // why: a cluster node refuses SELECT, so ask on database 0 before choosing the database
      connection = probe.connect(ByteArrayCodec.INSTANCE, RedisURI.builder(firstUri).withDatabase(0).build());
      if (firstUri.getDatabase() != 0 && !isClusterNode(connection, uris.size() > 1)) {
        connection.close();
        connection = probe.connect(ByteArrayCodec.INSTANCE);
      }
    } catch (RuntimeException e) {
      probe.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      throw e;
    }
    boolean clusterEnabled = isClusterNode(connection, uris.size() > 1);
    if (!clusterEnabled) {
      if (uris.size() > 1) {
        connection.close();
        probe.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        throw new InvalidRequestException(
            "redisUrl",
            "names " + uris.size() + " servers, but " + firstUri.getHost() + ":" + firstUri.getPort()
                + " is not in cluster mode (cluster_enabled:0). Give one URL for a single Redis,"
                + " or the nodes of a Redis Cluster");
      }
      RedisConnector connector = new RedisConnector(probe, null, firstUri);
      connector.first = connection;
      return connector;
    }
    connection.close();
    probe.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    for (RedisURI uri : uris) {
      if (uri.getDatabase() != 0) {
        throw new InvalidRequestException(
            "redisUrl",
            "selects database " + uri.getDatabase() + ", but a Redis Cluster has only database 0;"
                + " remove the /" + uri.getDatabase() + " from the URL");
      }
    }
    RedisClusterClient clusterClient = RedisClusterClient.create(resources, uris);
    clusterClient.setOptions(
        ClusterClientOptions.builder(options)
            .topologyRefreshOptions(
                ClusterTopologyRefreshOptions.builder()
                    .enablePeriodicRefresh(TOPOLOGY_REFRESH)
                    .enableAllAdaptiveRefreshTriggers()
                    // why: the default (30 s) would leave a failed-over slot unserved that long
                    .adaptiveRefreshTriggersTimeout(Duration.ofMillis(500))
                    .refreshTriggersReconnectAttempts(3)
                    .build())
            .build());
    RedisConnector connector = new RedisConnector(null, clusterClient, firstUri);
    try {
      connector.first = clusterClient.connect(ByteArrayCodec.INSTANCE);
      connectToMasters((StatefulRedisClusterConnection<byte[], byte[]>) connector.first);
    } catch (RuntimeException e) {
      clusterClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      throw e;
    }
    log.info("connected to a Redis Cluster of {} master(s) through {}:{}",
        connector.masters().size(), firstUri.getHost(), firstUri.getPort());
    return connector;
  }

  /**
   * Connects to the master the Sentinels name. When that fails, asks the Sentinels which masters
   * they know, so that a wrong master name is reported as such and not as an unreachable Redis.
   */
  private static RedisConnector openThroughSentinel(ClientResources resources, RedisURI uri, ClientOptions options) {
    RedisClient client = RedisClient.create(resources, uri);
    client.setOptions(options);
    StatefulRedisConnection<byte[], byte[]> connection;
    try {
      connection = client.connect(ByteArrayCodec.INSTANCE);
    } catch (RuntimeException e) {
      InvalidRequestException wrongName = unknownMaster(client, uri);
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      if (wrongName != null) {
        throw wrongName;
      }
      throw e;
    }
    RedisConnector connector = new RedisConnector(client, null, uri);
    connector.first = connection;
    String master = LinkWatchdog.remoteAddress(connection);
    connector.sentinel = new SentinelWatch(client, uri, resources, SENTINEL_CHECK, master);
    connector.sentinel.follow("producer", connection);
    log.info("connected to master '{}' at {} through Redis Sentinel {}", uri.getSentinelMasterId(),
        master, RedisUrls.redact(List.of(uri)));
    return connector;
  }

  /**
   * An error naming the masters the Sentinels know, when those that answer know none called as the
   * URL says; null when none answers (then the failure is an unreachable Redis) or one knows it.
   */
  private static InvalidRequestException unknownMaster(RedisClient client, RedisURI uri) {
    Set<String> known = new LinkedHashSet<>();
    List<String> answered = new ArrayList<>();
    for (RedisURI sentinelUri : uri.getSentinels()) {
      try (StatefulRedisSentinelConnection<String, String> sentinel =
          client.connectSentinel(StringCodec.UTF8, sentinelUri)) {
        for (Map<String, String> master : sentinel.sync().masters()) {
          known.add(master.get("name"));
        }
        answered.add(sentinelUri.getHost() + ":" + sentinelUri.getPort());
      } catch (RuntimeException e) {
        log.debug("Sentinel {}:{} cannot list its masters: {}", sentinelUri.getHost(), sentinelUri.getPort(), e.toString());
      }
    }
    String name = uri.getSentinelMasterId();
    if (answered.isEmpty() || known.contains(name)) {
      return null;
    }
    return new InvalidRequestException(
        "redisUrl",
        "names master '" + name + "', but the Sentinels at " + String.join(", ", answered)
            + (known.isEmpty()
                ? " monitor no master at all"
                : " monitor only " + known.stream().map(n -> "'" + n + "'").reduce((a, b) -> a + ", " + b).orElseThrow())
            + ". Put the name the Sentinels know the master by after '#': " + RedisUrls.SENTINEL_FORMAT);
  }

  private static boolean isClusterNode(StatefulRedisConnection<byte[], byte[]> connection, boolean assumed) {
    try {
      String info = connection.sync().info("cluster");
      return info.contains("cluster_enabled:1");
    } catch (RuntimeException e) {
      // why: INFO may be renamed or denied to this ACL user; then several URLs mean a cluster
      log.debug("INFO cluster failed ({}); assuming {}", e.toString(), assumed ? "a cluster" : "a single Redis");
      return assumed;
    }
  }

  boolean isCluster() {
    return cluster != null;
  }

  boolean isSentinel() {
    return sentinel != null;
  }

  AbstractRedisClient client() {
    return cluster != null ? cluster : standalone;
  }

  /** The connection opened on start, shared by producers. */
  StatefulConnection<byte[], byte[]> main() {
    return first;
  }

  /**
   * A further connection of the same kind (a cluster connection for a cluster); {@code role} names
   * it in log lines.
   */
  StatefulConnection<byte[], byte[]> connect(String role) {
    if (cluster == null) {
      StatefulRedisConnection<byte[], byte[]> connection = standalone.connect(ByteArrayCodec.INSTANCE);
      if (sentinel != null) {
        sentinel.follow(role, connection);
      }
      return connection;
    }
    StatefulRedisClusterConnection<byte[], byte[]> connection = cluster.connect(ByteArrayCodec.INSTANCE);
    connectToMasters(connection);
    return connection;
  }

  /**
   * Opens the connection's links to every master now. Lettuce opens them on first use, and a
   * command sent while its link is still opening is rejected (commands are rejected rather than
   * queued while disconnected, so that callers fail fast when a node is down).
   */
  private static void connectToMasters(StatefulRedisClusterConnection<byte[], byte[]> connection) {
    for (RedisClusterNode node : connection.getPartitions()) {
      if (node.is(RedisClusterNode.NodeFlag.UPSTREAM) && !node.is(RedisClusterNode.NodeFlag.FAIL)) {
        try {
          connection.getConnection(node.getUri().getHost(), node.getUri().getPort());
        } catch (RuntimeException e) {
          log.debug("cannot open a link to master {}: {}", node.getUri(), e.toString());
        }
      }
    }
  }

  static RedisClusterAsyncCommands<byte[], byte[]> commands(StatefulConnection<byte[], byte[]> connection) {
    if (connection instanceof StatefulRedisClusterConnection<byte[], byte[]> c) {
      return c.async();
    }
    return ((StatefulRedisConnection<byte[], byte[]>) connection).async();
  }

  /**
   * A pub/sub connection. For a cluster, Lettuce subscribes on one node and moves the
   * subscriptions to another when that node fails; messages published on any node reach every
   * node over the cluster bus.
   */
  CompletableFuture<? extends StatefulRedisPubSubConnection<byte[], byte[]>> connectPubSub() {
    if (cluster != null) {
      return cluster.connectPubSubAsync(ByteArrayCodec.INSTANCE);
    }
    CompletableFuture<StatefulRedisPubSubConnection<byte[], byte[]>> connecting =
        standalone.connectPubSubAsync(ByteArrayCodec.INSTANCE, firstUri).toCompletableFuture();
    if (sentinel == null) {
      return connecting;
    }
    return connecting.thenApply(connection -> {
      sentinel.follow("wake-up", connection);
      return connection;
    });
  }

  /**
   * Scripts that run on the connection to the master that serves {@code key}, so that a
   * {@code WAIT} sent on the same connection afterwards covers their writes. These connections
   * are used for durable writes only: a {@code WAIT} holds its connection until the replicas
   * answer, and must not hold up other callers' commands.
   */
  ScriptRunner writerFor(byte[] key, ServerTime serverTime) {
    StatefulConnection<byte[], byte[]> durable = durableConnection();
    if (cluster == null) {
      return nodeWriters.computeIfAbsent("", k -> new ScriptRunner(commands(durable), serverTime));
    }
    StatefulRedisClusterConnection<byte[], byte[]> connection = (StatefulRedisClusterConnection<byte[], byte[]>) durable;
    RedisClusterNode master = connection.getPartitions().getMasterBySlot(SlotHash.getSlot(key));
    if (master == null) {
      cluster.refreshPartitionsAsync();
      throw new RedisUnavailableException(
          "no master of the Redis Cluster serves slot " + SlotHash.getSlot(key)
              + " right now (a failover may be under way); retry shortly",
          null);
    }
    String host = master.getUri().getHost();
    int port = master.getUri().getPort();
    return nodeWriters.computeIfAbsent(
        master.getNodeId() + "@" + host + ":" + port,
        k -> new ScriptRunner(connection.getConnection(host, port).async(), serverTime));
  }

  private synchronized StatefulConnection<byte[], byte[]> durableConnection() {
    if (durable == null) {
      durable = connect("durable-write");
    }
    return durable;
  }

  /** Masters by {@code host:port}; a single Redis is its own one master. */
  List<String> masters() {
    if (sentinel != null) {
      String master = sentinel.master();
      return List.of(master != null ? master : firstUri.getSentinelMasterId());
    }
    if (cluster == null) {
      return List.of(firstUri.getHost() + ":" + firstUri.getPort());
    }
    List<String> masters = new ArrayList<>();
    for (RedisClusterNode node : clusterMain().getPartitions()) {
      if (node.is(RedisClusterNode.NodeFlag.UPSTREAM) && !node.is(RedisClusterNode.NodeFlag.FAIL)) {
        masters.add(node.getUri().getHost() + ":" + node.getUri().getPort());
      }
    }
    return masters;
  }

  /** Reads a CONFIG value from every master; a master that refuses CONFIG is left out. */
  Map<String, String> configOfMasters(String parameter) {
    Map<String, String> values = new LinkedHashMap<>();
    if (cluster == null) {
      String value = ((StatefulRedisConnection<byte[], byte[]>) first).sync().configGet(parameter).get(parameter);
      values.put(masters().get(0), value);
      return values;
    }
    for (String master : masters()) {
      int colon = master.lastIndexOf(':');
      try {
        String value =
            clusterMain()
                .getConnection(master.substring(0, colon), Integer.parseInt(master.substring(colon + 1)))
                .sync()
                .configGet(parameter)
                .get(parameter);
        values.put(master, value);
      } catch (RuntimeException e) {
        log.debug("cannot read {} from {}: {}", parameter, master, e.toString());
      }
    }
    return values;
  }

  private StatefulRedisClusterConnection<byte[], byte[]> clusterMain() {
    return (StatefulRedisClusterConnection<byte[], byte[]>) first;
  }

  /** Lets the cluster map be re-read now, e.g. after a MOVED reply on a direct node connection. */
  void refreshTopology() {
    if (cluster != null) {
      cluster.refreshPartitionsAsync();
    }
  }

  void shutdown() {
    if (sentinel != null) {
      sentinel.close();
    }
    synchronized (this) {
      if (durable != null) {
        durable.close();
      }
    }
    if (first != null) {
      first.close();
    }
    client().shutdown(Duration.ZERO, Duration.ofSeconds(2));
  }
}
