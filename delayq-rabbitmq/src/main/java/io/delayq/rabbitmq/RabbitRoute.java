package io.delayq.rabbitmq;

import io.delayq.InvalidRequestException;
import java.nio.charset.StandardCharsets;

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
    // why: AMQP counts a short string in UTF-8 bytes; a name of 255 characters or fewer can still be
    // too long, and amqp-client would refuse every publish with it
    int exchangeBytes = utf8Length(exchange);
    if (exchangeBytes > MAX_SHORT_STRING_BYTES) {
      throw new InvalidRequestException("exchange", "takes " + exchangeBytes + " bytes in UTF-8; AMQP allows at most "
          + MAX_SHORT_STRING_BYTES);
    }
    int keyBytes = utf8Length(routingKey);
    if (keyBytes > MAX_SHORT_STRING_BYTES) {
      throw new InvalidRequestException("routingKey", "takes " + keyBytes + " bytes in UTF-8; AMQP allows at most "
          + MAX_SHORT_STRING_BYTES);
    }
  }

  /** The most bytes an AMQP 0-9-1 short string (exchange, routing key, messageId, header name) holds. */
  static final int MAX_SHORT_STRING_BYTES = 255;

  static int utf8Length(String s) {
    return s.getBytes(StandardCharsets.UTF_8).length;
  }

  @Override
  public String toString() {
    return exchange + "/" + routingKey;
  }
}
