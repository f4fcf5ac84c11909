package io.delayq.internal;

/**
 * The Redis clock of each partition's node, estimated from the server time each claim returns.
 * On a Redis Cluster the masters' clocks may differ by seconds; each partition is timed by its own
 * node, so a master whose clock runs ahead neither delays the other partitions' jobs nor is woken
 * by their clocks. A wrong estimate costs at most one empty claim, never an early job: what is due
 * is decided inside the script by the node's own clock.
 */
final class PartitionClocks {
  private final Ticker ticker;
  private final int partitions;
  /**
   * Per partition: the node's clock minus the local monotonic clock, in microseconds; made at the
   * first observation, so that a queue handle nobody claims from holds nothing per partition.
   */
  private long[] offsetMicros;
  private boolean[] known;

  PartitionClocks(Ticker ticker, int partitions) {
    this.ticker = ticker;
    this.partitions = partitions;
  }

  /** Records a server time read between two local readings. */
  synchronized void observe(int p, long redisMicros, long sentNanos, long arrivedNanos) {
    if (offsetMicros == null) {
      offsetMicros = new long[partitions];
      known = new boolean[partitions];
    }
    long localMid = (sentNanos / 2 + arrivedNanos / 2) / 1000;
    offsetMicros[p] = redisMicros - localMid;
    known[p] = true;
  }

  /** The local monotonic time at which partition {@code p}'s node reads {@code epochMillis}. */
  synchronized long localNanosAt(int p, long epochMillis) {
    if (known == null || !known[p]) {
      return ticker.nanoTime();
    }
    long micros = epochMillis * 1000 - offsetMicros[p];
    // why: far-future due times (years) must not overflow nanoseconds
    return micros > Long.MAX_VALUE / 1000 ? Long.MAX_VALUE : micros * 1000;
  }
}
