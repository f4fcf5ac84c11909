package io.delayq.rabbitmq;

import io.delayq.Delayq;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * A forwarder in a process of its own, for {@link CrashIT}: it prints {@code CONFIRMED <n>} when
 * the broker has confirmed messages and before delayq records them, then blocks there for good,
 * so that the parent kills it exactly between confirm and record.
 *
 * <p>Arguments: redis URL, queue, amqp URL, exchange, routing key, window.
 */
final class ForwarderChild {
  private ForwarderChild() {}

  public static void main(String[] args) throws Exception {
    Delayq delayq = Delayq.connect(args[0]);
    var factory = new com.rabbitmq.client.ConnectionFactory();
    factory.setUri(args[2]);
    CountDownLatch never = new CountDownLatch(1);
    RabbitForwarder.builder(delayq.queue(args[1]), factory)
        .exchange(args[3])
        .routingKey(args[4])
        .maxInFlight(Integer.parseInt(args[5]))
        .confirmTimeout(Duration.ofSeconds(1))
        .lease(Duration.ofSeconds(3))
        .confirmHook(n -> {
          System.out.println("CONFIRMED " + n);
          System.out.flush();
          try {
            never.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        })
        .start();
    never.await();
  }
}
