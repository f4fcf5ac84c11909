package io.delayq.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class RedisClockTest {
  @Test
  void estimatesRedisTimeFromTheMidpointOfTheRoundTrip() {
    AtomicLong nanos = new AtomicLong(1_000_000_000L);
    RedisClock clock = new RedisClock(nanos::get);
    assertThat(clock.isKnown()).isFalse();
    // The claim left at t=1.000 s and returned at t=1.002 s local; Redis said 5,000.001 s.
    clock.observe(5_000_001_000L, 1_000_000_000L, 1_002_000_000L);
    assertThat(clock.isKnown()).isTrue();
    nanos.set(1_001_000_000L);
    assertThat(clock.redisMicros()).isEqualTo(5_000_001_000L);
    // A job due at 5,000.101 s by Redis is 100 ms away.
    assertThat(clock.nanosUntil(5_000_101L)).isEqualTo(100_000_000L);
    nanos.addAndGet(250_000_000L);
    assertThat(clock.nanosUntil(5_000_101L)).isEqualTo(-150_000_000L);
  }
}
