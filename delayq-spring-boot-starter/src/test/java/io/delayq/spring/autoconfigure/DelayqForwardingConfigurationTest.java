package io.delayq.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delayq.ListForwarding;
import io.delayq.SortedSetAdoption;
import io.delayq.rabbitmq.RabbitForwarder;
import io.delayq.spring.TestRedisUrl;
import io.delayq.spring.internal.forward.ForwardingLifecycle;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Bad forwarding and adoption properties fail startup through the starter's failure analyzer,
 * naming the property and what to do; without delayq-rabbitmq or without Spring AMQP the starter
 * still starts, and says what to add when RabbitMQ forwarding is asked for; the property defaults
 * are the core's. Nothing here reaches RabbitMQ: settings are refused before any connection.
 */
class DelayqForwardingConfigurationTest {
  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(
          DelayqAutoConfiguration.class, DelayqForwardingAutoConfiguration.class, RabbitAutoConfiguration.class))
      .withPropertyValues("delayq.redis.url=" + TestRedisUrl.get());

  /** Asserts the context failed and the analyzer's description and action contain the texts. */
  private static ContextConsumer<AssertableApplicationContext> failsWith(String description, String action) {
    return context -> {
      assertThat(context).hasFailed();
      FailureAnalysis analysis = new DelayqFailureAnalyzer().analyze(context.getStartupFailure());
      assertThat(analysis).as("analysed by the starter: %s", context.getStartupFailure()).isNotNull();
      assertThat(analysis.getDescription()).contains(description);
      assertThat(analysis.getAction()).contains(action);
    };
  }

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {}

  @Test
  @ExtendWith(OutputCaptureExtension.class)
  void aRealApplicationEndsWithBootsReportNamingTheProperty(CapturedOutput output) {
    SpringApplication application = new SpringApplication(App.class);
    application.setWebApplicationType(WebApplicationType.NONE);
    assertThatThrownBy(() -> application.run("--delayq.redis.url=" + TestRedisUrl.get(),
        "--delayq.forward.list.orders.list=execute_queue", "--delayq.forward.list.orders.format=xml"))
        .isInstanceOf(BeanCreationException.class);

    assertThat(output.toString())
        .contains("APPLICATION FAILED TO START")
        .containsPattern("Description:\\s+The value of delayq.forward.list.orders.format is not valid")
        .containsPattern("Action:\\s+Change delayq.forward.list.orders.format")
        .doesNotContain("\tat io.delayq");
  }

  @Test
  void anUnknownListFormatNamesTheProperty() {
    runner.withPropertyValues("delayq.forward.list.orders.list=execute_queue", "delayq.forward.list.orders.format=xml")
        .run(failsWith("The value of delayq.forward.list.orders.format is not valid: format: 'xml' is not one of raw or"
            + " envelope", "Change delayq.forward.list.orders.format"));
  }

  @Test
  void aListForwardingWithoutAListNamesTheProperty() {
    runner.withPropertyValues("delayq.forward.list.orders.format=raw")
        .run(failsWith("delayq.forward.list.orders.list is not valid", "Change delayq.forward.list.orders.list"));
  }

  @Test
  void anEmptyExchangeNamesTheProperty() {
    runner.withPropertyValues("spring.rabbitmq.host=127.0.0.1", "delayq.forward.rabbitmq.orders.exchange=",
            "delayq.forward.rabbitmq.orders.routing-key=order.cancel")
        .run(failsWith("delayq.forward.rabbitmq.orders.exchange is not valid: exchange: is not set",
            "Change delayq.forward.rabbitmq.orders.exchange"));
  }

  @Test
  void aMissingRoutingKeyNamesThePropertyAndAnEmptyOneIsAccepted() {
    runner.withPropertyValues("delayq.forward.rabbitmq.orders.exchange=orders")
        .run(failsWith("delayq.forward.rabbitmq.orders.routing-key is not valid", "routing-key"));
    runner.withPropertyValues("delayq.forward.rabbitmq.orders.exchange=orders", "delayq.forward.rabbitmq.orders.routing-key=",
            "delayq.forward.rabbitmq.orders.lease=1s")
        .run(failsWith("delayq.forward.rabbitmq.orders.lease is not valid", "Change delayq.forward.rabbitmq.orders.lease"));
  }

  @Test
  void aLeaseNotLongerThanTheConfirmTimeoutNamesTheProperty() {
    runner.withPropertyValues("delayq.forward.rabbitmq.orders.exchange=orders", "delayq.forward.rabbitmq.orders.routing-key=k",
            "delayq.forward.rabbitmq.orders.confirm-timeout=30s", "delayq.forward.rabbitmq.orders.lease=20s")
        .run(failsWith("delayq.forward.rabbitmq.orders.lease is not valid", "delayq.forward.rabbitmq.orders.lease"));
  }

  @Test
  void anAdoptionNeedsExactlyOneWayOfMakingIds() {
    runner.withPropertyValues("delayq.adopt.orders.source=delayed:orders")
        .run(failsWith("delayq.adopt.orders.id-field is not valid: idField: is not set, nor id-from-member-hash",
            "Change delayq.adopt.orders.id-field"));
    runner.withPropertyValues("delayq.adopt.orders.source=delayed:orders", "delayq.adopt.orders.id-field=orderId",
            "delayq.adopt.orders.id-from-member-hash=true")
        .run(failsWith("id-field is not valid: idField: and id-from-member-hash are both set", "delayq.adopt.orders.id-field"));
  }

  @Test
  void anUnknownScoreUnitOrModeOrAMissingSourceNamesTheProperty() {
    runner.withPropertyValues("delayq.adopt.orders.source=delayed:orders", "delayq.adopt.orders.id-field=orderId",
            "delayq.adopt.orders.score-unit=minutes")
        .run(failsWith("delayq.adopt.orders.score-unit is not valid: scoreUnit: 'minutes' is not a unit",
            "delayq.adopt.orders.score-unit"));
    runner.withPropertyValues("delayq.adopt.orders.source=delayed:orders", "delayq.adopt.orders.id-field=orderId",
            "delayq.adopt.orders.mode=some")
        .run(failsWith("delayq.adopt.orders.mode is not valid", "delayq.adopt.orders.mode"));
    runner.withPropertyValues("delayq.adopt.orders.id-field=orderId")
        .run(failsWith("delayq.adopt.orders.source is not valid: source: is not set", "delayq.adopt.orders.source"));
  }

  @Test
  void rabbitSettingsOfTheWrongTypeOrOutOfRangeNameTheProperty() {
    String base = "delayq.forward.rabbitmq.orders.";
    runner.withPropertyValues(base + "exchange=orders", base + "routing-key=k", base + "max-in-flight=lots")
        .run(context -> {
          assertThat(context).hasFailed();
          assertThat(context.getStartupFailure()).hasStackTraceContaining(base + "max-in-flight");
        });
    runner.withPropertyValues(base + "exchange=orders", base + "routing-key=k", base + "confirm-timeout=banana")
        .run(context -> {
          assertThat(context).hasFailed();
          assertThat(context.getStartupFailure()).hasStackTraceContaining(base + "confirm-timeout");
        });
    runner.withPropertyValues(base + "exchange=orders", base + "routing-key=k", base + "max-in-flight=-1")
        .run(failsWith(base + "max-in-flight is not valid", "Change " + base + "max-in-flight"));
    runner.withPropertyValues(base + "exchange=orders", base + "routing-key=k", base + "confirm-timeout=-5s")
        .run(failsWith(base + "confirm-timeout is not valid", "Change " + base + "confirm-timeout"));
    runner.withPropertyValues(base + "exchange=orders", base + "routing-key=" + "é".repeat(200))
        .run(failsWith(base + "routing-key is not valid", "Change " + base + "routing-key"));
  }

  @Test
  void aQueueNameThatBreaksTheRulesNamesTheProperty() {
    runner.withPropertyValues("delayq.forward.list[orders/eu].list=execute_queue")
        .run(failsWith("The queue name in delayq.forward.list[orders/eu] is not valid", "Rename the queue"));
  }

  @Test
  void aQueueForwardedToTwoTargetsIsRefused() {
    runner.withPropertyValues("delayq.forward.list.orders.list=execute_queue", "delayq.forward.rabbitmq.orders.exchange=x",
            "delayq.forward.rabbitmq.orders.routing-key=k")
        .run(failsWith("Queue 'orders' is forwarded twice: by delayq.forward.rabbitmq.orders.* and by"
            + " delayq.forward.list.orders.*", "Keep one of the two"));
  }

  @Test
  void withoutDelayqRabbitmqTheStarterStartsAndRabbitForwardingSaysWhatToAdd() {
    ApplicationContextRunner withoutRabbit = runner.withClassLoader(new FilteredClassLoader("io.delayq.rabbitmq"));
    withoutRabbit.run(context -> {
      assertThat(context).hasNotFailed().hasSingleBean(ForwardingLifecycle.class);
      assertThat(context.getBean(ForwardingLifecycle.class).isEmpty()).isTrue();
      assertThat(context).doesNotHaveBean(DelayqForwardingAutoConfiguration.RabbitForwarderFactory.class);
    });
    withoutRabbit.withPropertyValues("delayq.forward.rabbitmq.orders.exchange=x", "delayq.forward.rabbitmq.orders.routing-key=k")
        .run(failsWith("delayq.forward.rabbitmq.orders.* is set, but io.delayq:delayq-rabbitmq",
            "Add the io.delayq:delayq-rabbitmq dependency"));
  }

  @Test
  void withoutSpringAmqpRabbitForwardingNeedsAConnectionFactoryOfTheApplications() {
    ApplicationContextRunner withoutSpringAmqp = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(DelayqAutoConfiguration.class, DelayqForwardingAutoConfiguration.class))
        .withClassLoader(new FilteredClassLoader("org.springframework.amqp", "org.springframework.boot.amqp"))
        .withPropertyValues("delayq.redis.url=" + TestRedisUrl.get(), "delayq.forward.rabbitmq.orders.exchange=x",
            "delayq.forward.rabbitmq.orders.routing-key=k");
    withoutSpringAmqp.run(failsWith("delayq.forward.rabbitmq.orders.* is set, but the application has no RabbitMQ"
        + " connection", "spring-boot-starter-amqp"));
    withoutSpringAmqp.withUserConfiguration(OwnFactory.class)
        // a broker port nothing listens on: the forwarder starts, and retries in the background
        .run(context -> {
          assertThat(context).hasNotFailed();
          assertThat(context.getBean(ForwardingLifecycle.class).forwarders()).singleElement()
              .satisfies(f -> assertThat(f.target()).isEqualTo("rabbitmq:x/k"));
        });
  }

  @Test
  void theApplicationsSpringAmqpConnectionIsTheOneForwardedOver() {
    runner.withPropertyValues("spring.rabbitmq.host=rabbit.example", "spring.rabbitmq.port=5999",
            "spring.rabbitmq.username=delayq", "spring.rabbitmq.virtual-host=jobs")
        .run(context -> {
          RabbitConnections.FromSpring spring = context.getBean(RabbitConnections.FromSpring.class);
          com.rabbitmq.client.ConnectionFactory factory = spring.connectionFactory();
          assertThat(factory.getHost()).isEqualTo("rabbit.example");
          assertThat(factory.getPort()).isEqualTo(5999);
          assertThat(factory.getUsername()).isEqualTo("delayq");
          assertThat(factory.getVirtualHost()).isEqualTo("jobs");
        });
  }

  @Test
  void theDefaultsOfThePropertiesAreTheCoresOwn() {
    DelayqProperties.Rabbit rabbit = new DelayqProperties.Rabbit();
    assertThat(rabbit.getMaxInFlight()).isEqualTo(RabbitForwarder.DEFAULT_MAX_IN_FLIGHT);
    assertThat(rabbit.getConfirmTimeout()).isEqualTo(RabbitForwarder.DEFAULT_CONFIRM_TIMEOUT);
    assertThat(rabbit.getLease()).isEqualTo(RabbitForwarder.DEFAULT_LEASE);
    DelayqProperties.RedisList list = new DelayqProperties.RedisList();
    assertThat(list.getFormat()).isEqualToIgnoringCase(ListForwarding.DEFAULT_FORMAT.name());
    assertThat(list.getPushAt()).isEqualToIgnoringCase(ListForwarding.DEFAULT_PUSH_END.name());
    assertThat(list.getBatch()).isEqualTo(ListForwarding.DEFAULT_BATCH);
    assertThat(list.getLease()).isEqualTo(ListForwarding.DEFAULT_LEASE);
    DelayqProperties.Adopt adopt = new DelayqProperties.Adopt();
    SortedSetAdoption core = SortedSetAdoption.from("k").build();
    assertThat(adopt.getScoreUnit()).isEqualToIgnoringCase(core.scoreUnit().name());
    assertThat(adopt.getMode()).isEqualToIgnoringCase(core.mode().name());
    assertThat(adopt.getBatch()).isEqualTo(core.batch());
    assertThat(adopt.getPollInterval()).isEqualTo(core.pollInterval());
  }

  @Test
  void aForwardedQueueWithAListenerIsRefusedOnceTheListenersAreKnown() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(DelayqAutoConfiguration.class, DelayqPayloadAutoConfiguration.class,
            DelayqListenerAutoConfiguration.class, DelayqForwardingAutoConfiguration.class))
        .withPropertyValues("delayq.redis.url=" + TestRedisUrl.get(), "delayq.forward.list.orders-fwd.list=execute_queue")
        .withBean(OrdersListener.class)
        .run(failsWith("Queue 'orders-fwd' has both a forwarder (delayq.forward.list.orders-fwd.*) and listener",
            "Remove delayq.forward.list.orders-fwd.* or the listener"));
  }

  static class OrdersListener {
    @io.delayq.spring.listener.DelayqListener(queue = "orders-fwd")
    void on(String payload) {}
  }

  @Configuration(proxyBeanMethods = false)
  static class OwnFactory {
    @Bean
    com.rabbitmq.client.ConnectionFactory rabbitFactory() {
      com.rabbitmq.client.ConnectionFactory factory = new com.rabbitmq.client.ConnectionFactory();
      factory.setHost("127.0.0.1");
      factory.setPort(io.delayq.spring.FreePort.get());
      return factory;
    }
  }
}
