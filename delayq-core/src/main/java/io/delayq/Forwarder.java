package io.delayq;

/**
 * Hands the due jobs of one queue to something else that runs them (a RabbitMQ exchange, a Redis
 * list), instead of a handler in this process. A job leaves delayq only once its target has it:
 * until then it stays leased, and a job the target refused or did not confirm is handed back and
 * tried again. Closing stops the forwarding; jobs not yet passed on stay in delayq.
 *
 * @since 0.3.0
 */
public interface Forwarder extends AutoCloseable {
  /** The queue whose due jobs this forwards. */
  String queue();

  /** Where the jobs go, for logs and status pages (for example {@code rabbitmq:orders/order.cancel}). */
  String target();

  /** What the forwarder is doing now and has done since it started. */
  ForwarderStatus status();

  /** Stops forwarding; idempotent. */
  @Override
  void close();
}
