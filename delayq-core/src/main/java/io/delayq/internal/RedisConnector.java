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
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens connections to one Redis or to a Redis Cluster; the rest of delayq sees the same async
 * command interface either way. Whether the server is a cluster is asked of the server itself
 * ({@code INFO cluster}), so one URL is enough for both.
 */
final class RedisConnector {
  private static final Logger log = LoggerFactory.getLogger(RedisConnector.class);
  /**
   * How often the cluster map is re-read even when nothing seems wrong. A failover is noticed
   * sooner through the adaptive triggers (MOVED replies, reconnect attempts).
   */
  static final Duration TOPOLOGY_REFRESH = Duration.ofSeconds(2);

  private final RedisClient standalone;
  private final RedisClusterClient cluster;
  private final RedisURI firstUri;
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

  AbstractRedisClient client() {
    return cluster != null ? cluster : standalone;
  }

  /** The connection opened on start, shared by producers. */
  StatefulConnection<byte[], byte[]> main() {
    return first;
  }

  /** A further connection of the same kind (a cluster connection for a cluster). */
  StatefulConnection<byte[], byte[]> connect() {
    if (cluster == null) {
      return standalone.connect(ByteArrayCodec.INSTANCE);
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
    return cluster != null
        ? cluster.connectPubSubAsync(ByteArrayCodec.INSTANCE)
        : standalone.connectPubSubAsync(ByteArrayCodec.INSTANCE, firstUri).toCompletableFuture();
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
      durable = connect();
    }
    return durable;
  }

  /** Masters by {@code host:port}; a single Redis is its own one master. */
  List<String> masters() {
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
      values.put(firstUri.getHost() + ":" + firstUri.getPort(), value);
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
