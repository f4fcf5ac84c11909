package io.delayq;

import java.time.Duration;

/**
 * What one Redis master behind a {@link Delayq} says about itself, for health checks and
 * dashboards: whether and how fast it answers, and whether it can run out of memory and evict
 * jobs. Read by {@link Delayq#redisStatus()}.
 *
 * @param address the master's {@code host:port}
 * @param roundTrip how long a {@code PING} took to come back
 * @param usedMemory bytes Redis uses ({@code INFO memory}'s {@code used_memory}); -1 when this user
 *     may not run {@code INFO}
 * @param maxMemory Redis's memory limit in bytes ({@code maxmemory}); 0 when it has none, -1 when
 *     unknown
 * @param maxmemoryPolicy what Redis does at the limit, e.g. {@code noeviction}; null when unknown
 * @since 0.2.0
 */
public record RedisStatus(
    String address, Duration roundTrip, long usedMemory, long maxMemory, String maxmemoryPolicy) {

  /**
   * Whether this Redis may delete keys, and so jobs, when it reaches its memory limit: any policy
   * but {@code noeviction}. False when the policy is unknown.
   */
  public boolean mayEvict() {
    return maxmemoryPolicy != null && !maxmemoryPolicy.equals("noeviction");
  }

  /**
   * The share of {@link #maxMemory()} in use, 0 to 1 (or above, briefly, while Redis evicts or
   * refuses writes); -1 when there is no limit or either figure is unknown.
   */
  public double memoryUsedRatio() {
    return maxMemory > 0 && usedMemory >= 0 ? (double) usedMemory / maxMemory : -1;
  }
}
