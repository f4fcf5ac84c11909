package io.delayq.bench;

/**
 * A Redis the scenarios run against: the single node every scenario uses ({@link BenchRedis}), or
 * the Redis Cluster of the cluster scenario ({@link BenchCluster}).
 */
interface RedisTarget {
  /** The URL contenders connect with; for a cluster, the URL of one node, from which delayq finds the rest. */
  String uri();

  /** An {@code INFO all} snapshot, or {@code null} when this target does not collect one. */
  RedisStats stats();

  /** Deletes every key, synchronously, so the next run starts from an empty Redis. */
  void flushAll();
}
