package io.delayq.bench;

import java.time.Clock;
import java.time.Instant;

/** Wall-clock time in microseconds, the unit lateness is measured in. */
final class BenchClock {
  // why: Clock.systemUTC() has microsecond precision on Linux; System.currentTimeMillis() has only ms
  private static final Clock CLOCK = Clock.systemUTC();

  private BenchClock() {}

  /** Now, in microseconds since the epoch. */
  static long nowMicros() {
    return micros(CLOCK.instant());
  }

  static long micros(Instant instant) {
    return instant.getEpochSecond() * 1_000_000L + instant.getNano() / 1_000;
  }
}
