package io.delayq.rabbitmq;

import io.delayq.InvalidRequestException;

/**
 * Where one message goes: an exchange and the routing key it is published with. The empty
 * exchange name is RabbitMQ's default exchange, which routes by queue name.
 *
 * @param exchange the exchange's name; {@code ""} for the default exchange
 * @param routingKey the routing key; may be empty, never null
 * @since 0.3.0
 */
public record RabbitRoute(String exchange, String routingKey) {
  public RabbitRoute {
    if (exchange == null) {
      throw new InvalidRequestException(
          "exchange", "is null; name the exchange to publish to (\"\" is RabbitMQ's default exchange)");
    }
    if (routingKey == null) {
      throw new InvalidRequestException("routingKey", "is null; pass \"\" for an exchange that ignores the key");
    }
    if (exchange.length() > 255) {
      throw new InvalidRequestException("exchange", "is " + exchange.length() + " characters; AMQP allows at most 255");
    }
    if (routingKey.length() > 255) {
      throw new InvalidRequestException("routingKey", "is " + routingKey.length() + " characters; AMQP allows at most 255");
    }
  }

  @Override
  public String toString() {
    return exchange + "/" + routingKey;
  }
}
