package io.delayq.spring.autoconfigure;

import io.delayq.Delayq;
import io.delayq.DelayqException;
import io.delayq.Forwarder;
import io.delayq.InvalidRequestException;
import io.delayq.JobQueue;
import io.delayq.ListForwarding;
import io.delayq.SortedSetAdoption;
import io.delayq.SortedSetBridge;
import io.delayq.spring.internal.forward.ForwardingLifecycle;
import io.delayq.spring.listener.DelayqListenerContainer;
import io.delayq.spring.listener.DelayqListenerRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.StringUtils;

/**
 * Forwarding and adoption from properties: {@code delayq.forward.rabbitmq.<queue>.*} (with
 * io.delayq:delayq-rabbitmq, over the application's RabbitMQ connection), {@code
 * delayq.forward.list.<queue>.*} and {@code delayq.adopt.<queue>.*}. Every setting is checked when
 * the context is built, and a bad one fails startup naming its property; the forwarders and
 * bridges start once the context is refreshed and close, in the listeners' lifecycle phase, before
 * the {@link Delayq} client.
 *
 * @since 0.3.0
 */
@AutoConfiguration(
    after = {DelayqAutoConfiguration.class, DelayqListenerAutoConfiguration.class},
    afterName = "org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration")
@EnableConfigurationProperties(DelayqProperties.class)
public class DelayqForwardingAutoConfiguration {

  /**
   * The forwarders and bridges, as one lifecycle bean.
   *
   * @param delayq taken so that the client is destroyed after this bean, whose forwarders use it
   */
  @Bean
  public ForwardingLifecycle delayqForwarding(Delayq delayq, DelayqProperties properties,
      ObjectProvider<RabbitForwarderFactory> rabbit, ObjectProvider<DelayqListenerRegistry> listeners) {
    DelayqProperties.Forward forward = properties.getForward();
    for (String queue : forward.getRabbitmq().keySet()) {
      if (forward.getList().containsKey(queue)) {
        throw new DelayqStartupException(
            "Queue '" + queue + "' is forwarded twice: by " + prefix("delayq.forward.rabbitmq", queue) + ".* and by "
                + prefix("delayq.forward.list", queue) + ".*. Two forwarders on one queue would split its jobs"
                + " between the two targets at random.",
            "Keep one of the two, or forward another queue.", null);
      }
    }
    List<Supplier<SortedSetBridge>> bridges = new ArrayList<>();
    properties.getAdopt().forEach((queue, adopt) -> bridges.add(bridge(delayq, queue, adopt)));
    List<Supplier<Forwarder>> forwarders = new ArrayList<>();
    if (!forward.getRabbitmq().isEmpty()) {
      RabbitForwarderFactory factory = rabbit.getIfAvailable();
      if (factory == null) {
        String first = prefix("delayq.forward.rabbitmq", forward.getRabbitmq().keySet().iterator().next());
        throw new DelayqStartupException(
            first + ".* is set, but io.delayq:delayq-rabbitmq (and its com.rabbitmq:amqp-client) is not on the"
                + " classpath.",
            "Add the io.delayq:delayq-rabbitmq dependency, or remove the delayq.forward.rabbitmq.* properties.", null);
      }
      forward.getRabbitmq().forEach((queue, settings) ->
          forwarders.add(factory.forwarder(queue(delayq, "delayq.forward.rabbitmq", queue), queue, settings)));
    }
    forward.getList().forEach((queue, list) -> forwarders.add(listForwarder(delayq, queue, list)));
    Runnable preStart = () -> checkNoListener(listeners.getIfAvailable(), forward);
    return new ForwardingLifecycle(preStart, bridges, forwarders);
  }

  private static Supplier<Forwarder> listForwarder(Delayq delayq, String queue, DelayqProperties.RedisList list) {
    String prefix = prefix("delayq.forward.list", queue);
    ListForwarding options = check(prefix, () -> {
      if (!StringUtils.hasText(list.getList())) {
        throw new InvalidRequestException("list", "is not set; name the Redis list to push due jobs to");
      }
      return ListForwarding.toList(list.getList())
          .format(choice("format", list.getFormat(), ListForwarding.Format.class, "raw or envelope"))
          .pushAt(choice("pushAt", list.getPushAt(), ListForwarding.End.class, "left or right"))
          .batch(list.getBatch())
          .lease(list.getLease())
          .build();
    });
    JobQueue jobs = queue(delayq, "delayq.forward.list", queue);
    return () -> started(prefix, () -> jobs.forwardToList(options));
  }

  private static Supplier<SortedSetBridge> bridge(Delayq delayq, String queue, DelayqProperties.Adopt adopt) {
    String prefix = prefix("delayq.adopt", queue);
    SortedSetAdoption options = check(prefix, () -> {
      if (!StringUtils.hasText(adopt.getSource())) {
        throw new InvalidRequestException("source", "is not set; name the sorted set the old producers ZADD to");
      }
      boolean field = StringUtils.hasText(adopt.getIdField());
      if (field == adopt.isIdFromMemberHash()) {
        throw new InvalidRequestException("idField", (field
            ? "and id-from-member-hash are both set; "
            : "is not set, nor id-from-member-hash; ")
            + "set exactly one: id-field=<a top-level JSON field of the members, e.g. orderId>, or"
            + " id-from-member-hash=true for members that are not JSON objects with an id. The choice decides which"
            + " members count as the same job, and cannot change once members were adopted");
      }
      SortedSetAdoption.Builder builder = SortedSetAdoption.from(adopt.getSource())
          .scoreUnit(SortedSetAdoption.ScoreUnit.of(adopt.getScoreUnit()))
          .moving(SortedSetAdoption.Mode.of(adopt.getMode()))
          .batch(adopt.getBatch())
          .pollInterval(adopt.getPollInterval());
      return (field ? builder.jobIdFromJsonField(adopt.getIdField().trim()) : builder.jobIdFromMemberHash()).build();
    });
    JobQueue jobs = queue(delayq, "delayq.adopt", queue);
    return () -> started(prefix, () -> jobs.adopt(options));
  }

  /** The queue named by a map key, or a failed start naming the property when the name breaks the rules. */
  static JobQueue queue(Delayq delayq, String group, String queue) {
    try {
      return delayq.queue(queue);
    } catch (InvalidRequestException e) {
      throw new DelayqStartupException(
          "The queue name in " + prefix(group, queue) + " is not valid: " + e.getMessage() + ".",
          "Rename the queue in " + group + ".<queue>: 1 to 128 letters, digits, '.', '_', '-' or ':'; write a name"
              + " with '.' or ':' in brackets, e.g. " + group + "[orders:eu].", e);
    }
  }

  /** Builds options from properties, or fails startup naming the property that is wrong. */
  static <T> T check(String prefix, Supplier<T> build) {
    try {
      return build.get();
    } catch (InvalidRequestException | NullPointerException e) {
      String property = e instanceof InvalidRequestException invalid && invalid.field() != null
          ? prefix + "." + kebab(invalid.field())
          : prefix;
      throw new DelayqStartupException(
          "The value of " + property + " is not valid: " + e.getMessage() + ".",
          "Change " + property + " (see the table of forwarding and adoption properties in docs/SPRING-BOOT.md).", e);
    }
  }

  /** Starts one forwarder or bridge; what Redis or the broker refuses fails startup naming the properties. */
  static <T> T started(String prefix, Supplier<T> start) {
    try {
      return start.get();
    } catch (DelayqException e) {
      throw new DelayqStartupException(
          "delayq could not start what " + prefix + ".* asks for: " + e.getMessage() + ".",
          "Fix " + prefix + ".* or the data it names, then restart.", e);
    }
  }

  static String prefix(String group, String queue) {
    return queue.matches("[a-z0-9-]+") ? group + "." + queue : group + "[" + queue + "]";
  }

  private static <E extends Enum<E>> E choice(String field, String value, Class<E> type, String accepted) {
    String v = value == null ? "" : value.trim();
    for (E e : type.getEnumConstants()) {
      if (e.name().equalsIgnoreCase(v)) {
        return e;
      }
    }
    throw new InvalidRequestException(field, "'" + value + "' is not one of " + accepted);
  }

  /** "idField" as its property is spelled: "id-field". */
  private static String kebab(String field) {
    return field.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
  }

  /**
   * A listener on a forwarded queue would take its jobs from the forwarder at random: refused, now
   * that every listener is registered.
   */
  private static void checkNoListener(DelayqListenerRegistry listeners, DelayqProperties.Forward forward) {
    if (listeners == null) {
      return;
    }
    for (DelayqListenerContainer container : listeners.containers()) {
      String queue = container.queue();
      String group = forward.getRabbitmq().containsKey(queue) ? "delayq.forward.rabbitmq"
          : forward.getList().containsKey(queue) ? "delayq.forward.list" : null;
      if (group != null) {
        throw new DelayqStartupException(
            "Queue '" + queue + "' has both a forwarder (" + prefix(group, queue) + ".*) and " + container
                + ": the two would take each other's jobs at random.",
            "Remove " + prefix(group, queue) + ".* or the listener, or give one of them another queue.", null);
      }
    }
  }

  /** Makes the RabbitMQ forwarder of one queue; a bean only when delayq-rabbitmq is on the classpath. */
  @FunctionalInterface
  interface RabbitForwarderFactory {
    /** Checks the settings now, and returns what starts the forwarder. */
    Supplier<Forwarder> forwarder(JobQueue queue, String name, DelayqProperties.Rabbit settings);
  }

  // why: nested and guarded by name, so that without delayq-rabbitmq no signature naming one of its
  // types, or amqp-client's, is ever loaded
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = {"io.delayq.rabbitmq.RabbitForwarder", "com.rabbitmq.client.ConnectionFactory"})
  static class RabbitConfiguration {

    @Bean
    RabbitForwarderFactory delayqRabbitForwarderFactory(
        ObjectProvider<com.rabbitmq.client.ConnectionFactory> ownFactory,
        ObjectProvider<RabbitConnections.FromSpring> fromSpring) {
      return new RabbitConnections(ownFactory, fromSpring)::forwarder;
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {
        "org.springframework.amqp.rabbit.connection.AbstractConnectionFactory",
        "org.springframework.boot.amqp.autoconfigure.RabbitConnectionDetails"})
    static class SpringAmqpConfiguration {

      @Bean
      RabbitConnections.FromSpring delayqSpringRabbitConnection(
          ObjectProvider<org.springframework.amqp.rabbit.connection.ConnectionFactory> springFactory,
          ObjectProvider<org.springframework.boot.amqp.autoconfigure.RabbitConnectionDetails> details) {
        return new SpringRabbitConnection(springFactory, details);
      }
    }
  }
}
