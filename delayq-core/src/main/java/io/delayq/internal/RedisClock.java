package io.delayq.internal;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * An estimate of the Redis clock for the Java side's own uses that need wall time by Redis: which
 * history bucket an event falls in, which buckets are current. Kept as an offset from the local
 * wall clock, corrected from every server time a heartbeat or a {@code TIME} reply brings. Never
 * decides what is due (the scripts do, by the node's own clock).
 */
final class RedisClock {
  private final LongSupplier wallMillis;
  /** Redis's clock minus the local wall clock, ms; 0 until the first observation. */
  private volatile long offsetMillis;

  RedisClock(LongSupplier wallMillis) {
    this.wallMillis = wallMillis;
  }

  /** The Redis clock now, epoch ms, as estimated. */
  long nowMillis() {
    return wallMillis.getAsLong() + offsetMillis;
  }

  /** Records a server time read between two local wall-clock readings. */
  void observe(long redisMillis, long sentWallMillis, long arrivedWallMillis) {
    offsetMillis = redisMillis - (sentWallMillis + (arrivedWallMillis - sentWallMillis) / 2);
  }

  /** Reads {@code TIME} and corrects the estimate from it; a failure leaves the estimate as it was. */
  CompletableFuture<Void> refresh(CompletableFuture<List<byte[]>> time, long sentWallMillis) {
    return time.handle((t, error) -> {
      if (error == null && t != null && t.size() >= 2) {
        long seconds = Long.parseLong(new String(t.get(0), StandardCharsets.US_ASCII));
        long micros = Long.parseLong(new String(t.get(1), StandardCharsets.US_ASCII));
        observe(seconds * 1000 + micros / 1000, sentWallMillis, wallMillis.getAsLong());
      }
      return null;
    });
  }

  long wallMillis() {
    return wallMillis.getAsLong();
  }
}
