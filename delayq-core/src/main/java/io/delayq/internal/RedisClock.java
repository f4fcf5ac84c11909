package io.delayq.internal;

/**
 * Estimates the Redis server's clock from the local monotonic clock, using the server time that
 * every claim returns. A worker sleeps until the next due time by this estimate; since each claim
 * corrects it, a wrong estimate costs at most one empty claim, never an early job.
 */
final class RedisClock {
  private final Ticker ticker;
  private volatile long offsetMicros;
  private volatile boolean known;

  RedisClock(Ticker ticker) {
    this.ticker = ticker;
  }

  long localNanos() {
    return ticker.nanoTime();
  }

  /** Records a server time read between two local readings. */
  void observe(long redisMicros, long localBeforeNanos, long localAfterNanos) {
    long localMid = (localBeforeNanos / 2 + localAfterNanos / 2) / 1000;
    offsetMicros = redisMicros - localMid;
    known = true;
  }

  boolean isKnown() {
    return known;
  }

  long redisMicros() {
    return ticker.nanoTime() / 1000 + offsetMicros;
  }

  /** Nanoseconds from now until the Redis clock reads {@code epochMillis}; negative when past. */
  long nanosUntil(long epochMillis) {
    return (epochMillis * 1000 - redisMicros()) * 1000;
  }
}
