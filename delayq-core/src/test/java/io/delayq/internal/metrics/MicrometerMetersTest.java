package io.delayq.internal.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.Delayq;
import io.delayq.QueueStats;
import io.delayq.internal.QueueMeters;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The meters' own bookkeeping, with depths that come from the test instead of Redis. */
class MicrometerMetersTest {
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final MicrometerMeters meters = new MicrometerMeters(
      registry, Delayq.Builder.DEFAULT_LATENESS_SLOS, false, Duration.ofHours(1), Duration.ofSeconds(2));

  @AfterEach
  void close() {
    meters.close();
  }

  private static Supplier<CompletableFuture<QueueStats>> fixed(String queue, long scheduled) {
    return () -> CompletableFuture.completedFuture(new QueueStats(queue, 1, scheduled, 0, 0, 0, 0, false));
  }

  private List<Meter> metersOf(String queue) {
    return registry.getMeters().stream().filter(m -> queue.equals(m.getId().getTag("queue"))).toList();
  }

  @Test
  void keepsTheMetersOfTheMostRecentlyUsedQueuesOnly() {
    List<QueueMeters> made = new ArrayList<>();
    for (int i = 0; i < MicrometerMeters.MAX_QUEUES; i++) {
      made.add(meters.queue("q" + i, fixed("q" + i, i)));
    }
    made.get(0).touch();
    QueueMeters newest = meters.queue("q-new", fixed("q-new", 0));

    // q0 was used again, so q1 is the one used longest ago: all its meters go, and its holder is told
    assertThat(made.get(1).retired()).isTrue();
    assertThat(metersOf("q1")).isEmpty();
    assertThat(made.get(0).retired()).isFalse();
    assertThat(metersOf("q0")).isNotEmpty();
    assertThat(newest.retired()).isFalse();
    assertThat(registry.getMeters().stream().map(m -> m.getId().getTag("queue")).distinct().count())
        .isEqualTo(MicrometerMeters.MAX_QUEUES);

    // coming back gives fresh meters that count from zero
    QueueMeters again = meters.queue("q1", fixed("q1", 1));
    again.acked(2);
    assertThat(registry.get("delayq.jobs.acked").tag("queue", "q1").counter().count()).isEqualTo(2);
  }

  @Test
  void gaugesShowTheLastReadingAndNaNWhenItFails() {
    AtomicInteger reads = new AtomicInteger();
    meters.queue("ok", () -> {
      reads.incrementAndGet();
      return CompletableFuture.completedFuture(new QueueStats("ok", 2, 7, 3, 2, 1, 4, true));
    });
    meters.queue("broken", () -> CompletableFuture.failedFuture(new IllegalStateException("Redis is away")));
    await().atMost(Duration.ofSeconds(5))
        .until(() -> registry.get("delayq.queue.jobs").tags("queue", "ok", "state", "scheduled").gauge().value() == 7);
    assertThat(registry.get("delayq.queue.jobs").tags("queue", "ok", "state", "due").gauge().value()).isEqualTo(3);
    assertThat(registry.get("delayq.queue.jobs").tags("queue", "ok", "state", "active").gauge().value()).isEqualTo(2);
    assertThat(registry.get("delayq.queue.jobs").tags("queue", "ok", "state", "expired").gauge().value()).isEqualTo(1);
    assertThat(registry.get("delayq.queue.jobs").tags("queue", "ok", "state", "dead").gauge().value()).isEqualTo(4);
    assertThat(registry.get("delayq.queue.paused").tag("queue", "ok").gauge().value()).isEqualTo(1);
    assertThat(registry.get("delayq.queue.jobs").tags("queue", "broken", "state", "scheduled").gauge().value()).isNaN();

    // a scrape reads what was read; it never asks for the counts itself (the interval here is an hour)
    for (int i = 0; i < 1000; i++) {
      registry.get("delayq.queue.jobs").tags("queue", "ok", "state", "scheduled").gauge().value();
    }
    assertThat(reads).hasValue(1);
  }

  @Test
  void closingStopsTheRefresherAndRemovesTheGaugesButKeepsTheCounts() {
    QueueMeters q = meters.queue("q", fixed("q", 5));
    q.acked(3);
    await().atMost(Duration.ofSeconds(5)).until(() -> threadAlive("delayq-metrics"));
    meters.close();
    assertThat(registry.find("delayq.queue.jobs").gauges()).isEmpty();
    assertThat(registry.find("delayq.queue.paused").gauges()).isEmpty();
    assertThat(registry.get("delayq.jobs.acked").tag("queue", "q").counter().count()).isEqualTo(3);
    await().atMost(Duration.ofSeconds(5)).until(() -> !threadAlive("delayq-metrics"));
    assertThat(meters.queue("later", fixed("later", 1))).isSameAs(QueueMeters.NONE);
  }

  private static boolean threadAlive(String name) {
    return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().equals(name) && t.isAlive());
  }
}
