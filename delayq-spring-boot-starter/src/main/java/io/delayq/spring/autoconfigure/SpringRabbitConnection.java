package io.delayq.spring.autoconfigure;

import com.rabbitmq.client.ConnectionFactory;
import org.springframework.amqp.rabbit.connection.AbstractConnectionFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.amqp.autoconfigure.RabbitConnectionDetails;
import org.springframework.boot.ssl.SslBundle;

/**
 * The application's RabbitMQ connection as Spring AMQP and Boot set it up: the amqp-client factory
 * under its Spring AMQP connection factory (Boot's {@code CachingConnectionFactory}), or else one
 * made from {@code RabbitConnectionDetails} (its first address, credentials, virtual host, SSL
 * bundle) when the application replaced that factory by one that has none underneath.
 */
final class SpringRabbitConnection implements RabbitConnections.FromSpring {
  private final ObjectProvider<org.springframework.amqp.rabbit.connection.ConnectionFactory> springFactory;
  private final ObjectProvider<RabbitConnectionDetails> details;

  SpringRabbitConnection(ObjectProvider<org.springframework.amqp.rabbit.connection.ConnectionFactory> springFactory,
      ObjectProvider<RabbitConnectionDetails> details) {
    this.springFactory = springFactory;
    this.details = details;
  }

  @Override
  public ConnectionFactory connectionFactory() {
    if (springFactory.getIfUnique() instanceof AbstractConnectionFactory spring) {
      return spring.getRabbitConnectionFactory();
    }
    RabbitConnectionDetails found = details.getIfAvailable();
    return found == null ? null : fromDetails(found);
  }

  private static ConnectionFactory fromDetails(RabbitConnectionDetails details) {
    ConnectionFactory factory = new ConnectionFactory();
    RabbitConnectionDetails.Address address = details.getFirstAddress();
    factory.setHost(address.host());
    factory.setPort(address.port());
    if (details.getUsername() != null) {
      factory.setUsername(details.getUsername());
    }
    if (details.getPassword() != null) {
      factory.setPassword(details.getPassword());
    }
    if (details.getVirtualHost() != null) {
      factory.setVirtualHost(details.getVirtualHost());
    }
    SslBundle ssl = details.getSslBundle();
    if (ssl != null) {
      factory.useSslProtocol(ssl.createSslContext());
    }
    return factory;
  }
}
