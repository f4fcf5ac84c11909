package io.delayq;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * What one Redis node behind a {@link Delayq} says about itself, for an operator's page: read by
 * {@link Delayq#redisNodes()} from {@code INFO}, {@code CONFIG GET} and, on a cluster, the slot map.
 * A figure this Redis user may not read (ACL) or the server does not give is -1, or null.
 *
 * @param address the node's {@code host:port}
 * @param role {@code master} or {@code replica}
 * @param version the Redis version, e.g. {@code 7.2.4}; null when unknown
 * @param mode {@code standalone}, {@code cluster} or {@code sentinel} (a master found through
 *     Sentinels)
 * @param usedMemory bytes in use ({@code used_memory}), -1 when unknown
 * @param maxMemory the memory limit in bytes, 0 when there is none, -1 when unknown
 * @param maxmemoryPolicy what Redis does at the limit, e.g. {@code noeviction}; null when unknown
 * @param aofEnabled whether the append-only file is on (false when unknown)
 * @param rdbSaveConfig the {@code save} setting, e.g. {@code "3600 1 300 100"}, empty when RDB
 *     snapshots are off; null when unknown
 * @param lastSave when the last RDB snapshot was saved; null when unknown
 * @param connectedClients client connections, -1 when unknown
 * @param uptime how long the server has run; null when unknown
 * @param slotRanges on a cluster, the slot ranges this node serves, e.g. {@code "0-5460"}; empty
 *     otherwise
 * @param roundTrip how long a {@code PING} took to come back
 * @since 0.4.0
 */
public record RedisNode(
    String address,
    String role,
    String version,
    String mode,
    long usedMemory,
    long maxMemory,
    String maxmemoryPolicy,
    boolean aofEnabled,
    String rdbSaveConfig,
    Instant lastSave,
    long connectedClients,
    Duration uptime,
    List<String> slotRanges,
    Duration roundTrip) {

  public RedisNode {
    Objects.requireNonNull(address, "address");
    slotRanges = List.copyOf(slotRanges);
  }

  /**
   * Whether this Redis may delete keys, and so jobs, when it reaches its memory limit: any policy
   * but {@code noeviction}. False when the policy is unknown.
   */
  public boolean mayEvict() {
    return maxmemoryPolicy != null && !maxmemoryPolicy.equals("noeviction");
  }
}
