package io.delayq.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.Delayq;
import io.delayq.JobRequest;
import io.delayq.LeasedJob;
import io.delayq.spring.TestRedisUrl;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/** The code of the README's {@code @DelayqListener} section, compiled and run. */
class ReadmeExampleIT {
  record Order(String id, long amountCents) {}

  /** Stands in for the application's own service. */
  static class Orders {
    final Set<String> cancelled = ConcurrentHashMap.newKeySet();

    void cancelIfUnpaid(String orderId) {
      if (orderId.isBlank()) {
        throw new IllegalArgumentException("no order id");
      }
      cancelled.add(orderId);
    }
  }

  record Chunk(int number) {}

  static class Exporter {
    final Set<Integer> written = ConcurrentHashMap.newKeySet();

    List<Chunk> chunks(String report) {
      return List.of(new Chunk(1), new Chunk(2), new Chunk(3));
    }

    void write(Chunk chunk) {
      written.add(chunk.number());
    }
  }

  // README: begin listener
  static class OrderCancellation {
    private final Orders orders;

    OrderCancellation(Orders orders) {
      this.orders = orders;
    }

    @DelayqListener(
        queue = "${orders.cancel-queue}",
        concurrency = "${orders.concurrency:8}",
        lease = "30s",
        maxAttempts = "5",
        backoff = @DelayqListener.Backoff(initial = "1s", multiplier = "2", max = "10m"),
        nonRetryable = IllegalArgumentException.class)
    void cancelIfUnpaid(Order order, LeasedJob job) {
      orders.cancelIfUnpaid(order.id());
    }
  }
  // README: end listener

  // README: begin long work
  static class Exports {
    private final Exporter exporter;

    Exports(Exporter exporter) {
      this.exporter = exporter;
    }

    @DelayqListener(queue = "exports", lease = "1m")
    void export(String report, LeasedJob job) {
      for (Chunk chunk : exporter.chunks(report)) {
        exporter.write(chunk);
        job.extendLease(Duration.ofMinutes(1)); // another minute from now
      }
    }
  }
  // README: end long work

  @Test
  void theReadmeListenersRun() {
    String queue = ListenerTesting.uniqueQueue("readme");
    ListenerTesting.runner()
        .withBean(Orders.class)
        .withBean(Exporter.class)
        .withBean(OrderCancellation.class)
        .withBean(Exports.class)
        .withPropertyValues("orders.cancel-queue=" + queue)
        .run(context -> {
          try (Delayq delayq = Delayq.connect(TestRedisUrl.get())) {
            delayq.queue(queue).schedule(JobRequest.ofJson("{\"id\":\"o-42\",\"amountCents\":1999}"));
            delayq.queue("exports").schedule(JobRequest.of("monthly"));
            Orders orders = context.getBean(Orders.class);
            Exporter exporter = context.getBean(Exporter.class);
            await().atMost(Duration.ofSeconds(10)).until(() -> orders.cancelled.contains("o-42")
                && exporter.written.size() == 3);

            DelayqListenerRegistry registry = context.getBean(DelayqListenerRegistry.class);
            // README: begin registry
            registry.container("exports").ifPresent(DelayqListenerContainer::stop);
            // README: end registry
            assertThat(registry.container("exports").orElseThrow().isRunning()).isFalse();
            assertThat(registry.container(queue).orElseThrow().isRunning()).isTrue();
          }
        });
  }
}
