package io.delayq.bench;

import io.delayq.embedded.RedisClusterProcesses;
import io.delayq.embedded.RedisServerProcess;
import io.delayq.internal.Keys;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The Redis Cluster of the cluster scenario: {@value #MASTERS} masters with {@value
 * #REPLICAS_PER_MASTER} replica each, every node a {@code redis-server} child process on 127.0.0.1
 * started from the same binary and with the same settings as the single node ({@link
 * BenchRedis#SETTINGS}, no persistence), plus a connection of the benchmark's own to each master
 * for {@code FLUSHALL}.
 */
final class BenchCluster implements RedisTarget, AutoCloseable {
  static final int MASTERS = 3;
  static final int REPLICAS_PER_MASTER = 1;
  /** How long a FLUSHALL may take to reach a master's replica. */
  private static final Duration REPLICATION_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration PROBE_TIMEOUT = Duration.ofMinutes(5);

  private final RedisClusterProcesses cluster;
  /** The masters, by port. */
  private final List<RedisServerProcess> masters;
  private final RedisClient client;
  private final List<StatefulRedisConnection<String, String>> probes = new ArrayList<>();

  private BenchCluster(RedisClusterProcesses cluster) {
    this.cluster = cluster;
    this.masters = cluster.masters().stream().sorted(Comparator.comparingInt(RedisServerProcess::port)).toList();
    if (masters.size() != MASTERS) {
      throw new IllegalStateException("the cluster has " + masters.size() + " masters, not " + MASTERS);
    }
    this.client = RedisClient.create();
    for (RedisServerProcess master : masters) {
      RedisURI uri = RedisURI.create(master.uri());
      uri.setTimeout(PROBE_TIMEOUT);
      probes.add(client.connect(uri));
    }
  }

  /** Starts the cluster from {@code binary} and waits until it is healthy, replicas in sync. */
  static BenchCluster start(Path binary) {
    RedisClusterProcesses.Builder builder = RedisClusterProcesses.builder()
        .masters(MASTERS)
        .replicasPerMaster(REPLICAS_PER_MASTER)
        .binary(binary);
    BenchRedis.SETTINGS.forEach(builder::setting);
    RedisClusterProcesses cluster = builder.start();
    try {
      return new BenchCluster(cluster);
    } catch (RuntimeException e) {
      try {
        cluster.close();
      } catch (RuntimeException closeFailed) {
        e.addSuppressed(closeFailed);
      }
      throw e;
    }
  }

  @Override
  public String uri() {
    return cluster.seedUrl();
  }

  /** Not collected: the cluster's counters are spread over its nodes, and no table here needs them. */
  @Override
  public RedisStats stats() {
    return null;
  }

  /**
   * FLUSHALL on every master, then WAIT until its replica has applied it, so that no replica is
   * still deleting the previous run's keys while the next one is measured.
   */
  @Override
  public void flushAll() {
    for (StatefulRedisConnection<String, String> probe : probes) {
      probe.sync().flushall();
      long acked = probe.sync().waitForReplication(REPLICAS_PER_MASTER, REPLICATION_TIMEOUT.toMillis());
      if (acked < REPLICAS_PER_MASTER) {
        throw new IllegalStateException("FLUSHALL reached " + acked + " of " + REPLICAS_PER_MASTER
            + " replicas of a master within " + REPLICATION_TIMEOUT.toSeconds() + " s");
      }
    }
  }

  /** Ports of the masters, then of the replicas, for the report. */
  String describe() {
    List<Integer> masterPorts = masters.stream().map(RedisServerProcess::port).toList();
    List<Integer> replicaPorts = cluster.nodes().stream().map(RedisServerProcess::port)
        .filter(p -> !masterPorts.contains(p)).sorted().toList();
    return "masters on ports " + masterPorts + ", replicas on " + replicaPorts;
  }

  /**
   * How many of {@code queue}'s partitions each master serves, the busiest master first, e.g.
   * {@code 6/5/5}: delayq's partition hash tags follow from the queue name, so this is how a
   * queue's load can spread.
   */
  String partitionsPerMaster(String queue, int partitions) {
    Map<Integer, Integer> perPort = new LinkedHashMap<>();
    masters.forEach(m -> perPort.put(m.port(), 0));
    for (int p = 0; p < partitions; p++) {
      // why: Keys builds delayq's key names; every key of a partition shares its hash tag, so any one gives the slot
      String key = new String(Keys.partition(queue, p).scheduled(), StandardCharsets.UTF_8);
      int port = cluster.masterOfSlot(RedisClusterProcesses.slot(key)).port();
      perPort.merge(port, 1, Integer::sum);
    }
    return perPort.values().stream().sorted(Comparator.reverseOrder()).map(String::valueOf)
        .collect(Collectors.joining("/"));
  }

  @Override
  public void close() {
    try {
      probes.forEach(StatefulRedisConnection::close);
      client.shutdown(0, 2, TimeUnit.SECONDS);
    } finally {
      cluster.close();
    }
  }
}
