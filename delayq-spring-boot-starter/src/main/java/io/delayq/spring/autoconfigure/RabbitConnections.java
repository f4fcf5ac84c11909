package io.delayq.spring.autoconfigure;

import com.rabbitmq.client.ConnectionFactory;
import io.delayq.Forwarder;
import io.delayq.JobQueue;
import io.delayq.rabbitmq.RabbitForwarder;
import java.util.function.Supplier;
import org.springframework.beans.factory.ObjectProvider;

/**
 * The RabbitMQ forwarders of {@code delayq.forward.rabbitmq.*} and the connection they use: a
 * {@code com.rabbitmq.client.ConnectionFactory} bean of the application's own, else the one under
 * the application's Spring AMQP connection factory ({@code spring.rabbitmq.*}, which Boot
 * configures with host, credentials, virtual host, TLS and timeouts), else one made from Boot's
 * {@code RabbitConnectionDetails}. Each forwarder copies the factory and opens a connection of its
 * own: publisher confirms need a channel nobody else uses, and the forwarder turns off the
 * factory's automatic recovery, which must not change the application's own connections.
 */
final class RabbitConnections {
  private final ObjectProvider<ConnectionFactory> ownFactory;
  private final ObjectProvider<FromSpring> fromSpring;

  RabbitConnections(ObjectProvider<ConnectionFactory> ownFactory, ObjectProvider<FromSpring> fromSpring) {
    this.ownFactory = ownFactory;
    this.fromSpring = fromSpring;
  }

  /** The connection factory of the application's Spring AMQP set-up, when it has one. */
  @FunctionalInterface
  interface FromSpring {
    /** Null when the application has no RabbitMQ connection. */
    ConnectionFactory connectionFactory();
  }

  Supplier<Forwarder> forwarder(JobQueue queue, String name, DelayqProperties.Rabbit settings) {
    String prefix = DelayqForwardingAutoConfiguration.prefix("delayq.forward.rabbitmq", name);
    RabbitForwarder.Builder builder = DelayqForwardingAutoConfiguration.check(prefix, () -> {
      if (settings.getExchange() == null || settings.getExchange().isBlank()) {
        throw new io.delayq.InvalidRequestException("exchange", "is not set; name the exchange to publish the"
            + " due jobs to (it must exist on the broker)");
      }
      if (settings.getRoutingKey() == null) {
        throw new io.delayq.InvalidRequestException("routingKey", "is not set; give the routing key the exchange's"
            + " bindings expect, or set it empty (routing-key=) for a fanout or headers exchange");
      }
      RabbitForwarder.Builder b = RabbitForwarder.builder(queue, connectionFactory(prefix))
          .exchange(settings.getExchange().trim())
          .routingKey(settings.getRoutingKey().trim())
          .maxInFlight(settings.getMaxInFlight())
          .confirmTimeout(settings.getConfirmTimeout())
          .lease(settings.getLease());
      b.build(); // why: checks every setting now, while the context is built, not when it starts
      return b;
    });
    return () -> DelayqForwardingAutoConfiguration.started(prefix, builder::start);
  }

  private ConnectionFactory connectionFactory(String prefix) {
    ConnectionFactory own = ownFactory.getIfUnique();
    if (own != null) {
      return own;
    }
    FromSpring spring = fromSpring.getIfAvailable();
    ConnectionFactory found = spring == null ? null : spring.connectionFactory();
    if (found == null) {
      throw new DelayqStartupException(
          prefix + ".* is set, but the application has no RabbitMQ connection to forward over.",
          "Add org.springframework.boot:spring-boot-starter-amqp and set spring.rabbitmq.host/port/username/password"
              + " (or spring.rabbitmq.addresses), or declare a com.rabbitmq.client.ConnectionFactory bean.", null);
    }
    return found;
  }
}
