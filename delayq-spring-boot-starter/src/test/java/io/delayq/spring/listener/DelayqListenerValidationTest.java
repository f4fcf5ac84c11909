package io.delayq.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delayq.JobQueue;
import io.delayq.LeasedJob;
import io.delayq.spring.TestRedisUrl;
import io.delayq.spring.autoconfigure.DelayqAutoConfiguration;
import io.delayq.spring.autoconfigure.DelayqListenerAutoConfiguration;
import io.delayq.spring.autoconfigure.DelayqPayloadAutoConfiguration;
import io.delayq.spring.internal.listener.ListenerDefinitionException;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.config.CustomScopeConfigurer;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Scope;
import org.springframework.context.annotation.ScopedProxyMode;

/**
 * Listener methods that cannot work fail the application's start, naming the bean, the method
 * and what to change; nothing is started for them.
 */
class DelayqListenerValidationTest {
  private static final String SIGNATURES = "Accepted signatures: a void method";

  record Order(String id) {}

  private final ApplicationContextRunner runner = ListenerTesting.runner();

  private void failsWith(Class<?> listener, Consumer<AbstractThrowableAssert<?, ? extends Throwable>> check,
      String... properties) {
    runner.withBean("badListener", listener).withPropertyValues(properties).run(context -> {
      assertThat(context).hasFailed();
      Throwable failure = context.getStartupFailure();
      while (failure.getCause() != null && !failure.getClass().getSimpleName().equals("ListenerDefinitionException")) {
        failure = failure.getCause();
      }
      check.accept(assertThat(failure).hasMessageContaining("of bean 'badListener'"));
    });
  }

  static class TwoPayloads {
    @DelayqListener(queue = "orders")
    void on(Order order, String text) {}
  }

  @Test
  void twoPayloadParametersAreRefused() {
    failsWith(TwoPayloads.class, failure -> failure
        .hasMessageStartingWith("@DelayqListener TwoPayloads.on(DelayqListenerValidationTest$Order, String)")
        .hasMessageContaining("parameters 1 (DelayqListenerValidationTest$Order) and 2 (String) would both be the payload")
        .hasMessageContaining(SIGNATURES));
  }

  static class TwoJobs {
    @DelayqListener(queue = "orders")
    void on(LeasedJob first, LeasedJob second) {}
  }

  @Test
  void theJobTwiceIsRefused() {
    failsWith(TwoJobs.class, failure -> failure
        .hasMessageContaining("TwoJobs.on(LeasedJob, LeasedJob)")
        .hasMessageContaining("both LeasedJob")
        .hasMessageContaining(SIGNATURES));
  }

  static class DelayqTypeParameter {
    @DelayqListener(queue = "orders")
    void on(JobQueue queue) {}
  }

  @Test
  void delayqTypesOtherThanTheJobAreRefused() {
    failsWith(DelayqTypeParameter.class, failure -> failure
        .hasMessageContaining("DelayqTypeParameter.on(JobQueue)")
        .hasMessageContaining("takes io.delayq.LeasedJob only")
        .hasMessageContaining(SIGNATURES));
  }

  static class ObjectPayload {
    @DelayqListener(queue = "orders")
    void on(Object payload) {}
  }

  @Test
  void anObjectPayloadIsRefusedSinceItWouldBeAMap() {
    failsWith(ObjectPayload.class, failure -> failure
        .hasMessageContaining("says nothing of what the payload is")
        .hasMessageContaining(SIGNATURES));
  }

  static class Generic<T> {
    @DelayqListener(queue = "orders")
    void on(List<T> payload) {}
  }

  @Test
  void aTypeVariableTheBeanDoesNotResolveIsRefused() {
    failsWith(Generic.class, failure -> failure
        .hasMessageContaining("Generic.on(List<T>)")
        .hasMessageContaining("parameter 1 (List<T>)")
        .hasMessageContaining("type variable")
        .hasMessageContaining("@Bean method returning Listener<Order>")
        .hasMessageContaining(SIGNATURES));
  }

  static class ReturnsValue {
    @DelayqListener(queue = "orders")
    String on(String payload) {
      return payload;
    }
  }

  @Test
  void aListenerThatReturnsAValueIsRefused() {
    failsWith(ReturnsValue.class, failure -> failure
        .hasMessageContaining("ReturnsValue.on(String)")
        .hasMessageContaining("it returns String; a listener returns void")
        .hasMessageContaining(SIGNATURES));
  }

  static class PojoListener {
    @DelayqListener(queue = "orders")
    void on(Order order) {}
  }

  static class TextListener {
    @DelayqListener(queue = "${orders.queue}")
    void on(String text, LeasedJob job) {}
  }

  @Test
  void aPayloadTypeTheConverterCannotReadIsRefusedButTextStillWorksWithoutJackson() {
    ApplicationContextRunner noJackson = runner.withClassLoader(new FilteredClassLoader("tools.jackson", "com.fasterxml.jackson"));
    noJackson.withBean("badListener", PojoListener.class).run(context -> {
      assertThat(context).hasFailed();
      assertThat(context.getStartupFailure())
          .isInstanceOf(ListenerDefinitionException.class)
          .hasMessageContaining("PojoListener.on(DelayqListenerValidationTest$Order) of bean 'badListener'")
          .hasMessageContaining("NoJsonPayloadConverter) cannot read a payload as " + Order.class.getName())
          .hasMessageContaining("tools.jackson.core:jackson-databind")
          .hasMessageContaining(SIGNATURES);
    });
    noJackson.withBean("textListener", TextListener.class)
        .withPropertyValues("orders.queue=" + ListenerTesting.uniqueQueue("no-jackson"))
        .run(context -> assertThat(context).hasNotFailed().hasSingleBean(DelayqListenerRegistry.class));
  }

  static class Configurable {
    @DelayqListener(queue = "${t.queue:orders}", concurrency = "${t.concurrency:1}", lease = "${t.lease:30s}",
        maxAttempts = "${t.max-attempts:}", autoStartup = "${t.auto-startup:true}",
        backoff = @DelayqListener.Backoff(initial = "${t.initial:1s}", max = "${t.max:10m}",
            multiplier = "${t.multiplier:2}", jitter = "${t.jitter:0.2}"))
    void on(String text) {}
  }

  private void badValue(String property, String... expected) {
    failsWith(Configurable.class, failure -> {
      failure.hasMessageContaining("Configurable.on(String) of bean 'badListener'");
      for (String text : expected) {
        failure.hasMessageContaining(text);
      }
    }, property);
  }

  @Test
  void badDurationsAreRefusedWithTheAcceptedForms() {
    badValue("t.lease=30 parsecs", "lease = \"${t.lease:30s}\"", "'30 parsecs' is not a duration", "30s", "PT30S");
    badValue("t.lease=10ms", "lease = \"${t.lease:30s}\"", "between 100 ms and 1 day");
    badValue("t.initial=soon", "backoff.initial", "'soon' is not a duration");
  }

  @Test
  void badConcurrencyIsRefused() {
    badValue("t.concurrency=eight", "concurrency = \"${t.concurrency:1}\"", "'eight' is not a whole number", "1 to 10000");
    badValue("t.concurrency=0", "concurrency", "0 is out of range; give one from 1 to 10000");
  }

  @Test
  void badAttemptsBackoffAndStartupFlagsAreRefused() {
    badValue("t.max-attempts=0", "maxAttempts", "0 is out of range; give one from 1 to 1000");
    badValue("t.max=1ms", "backoff", "initial <= max");
    badValue("t.multiplier=0.5", "backoff", "multiplier", ">= 1");
    badValue("t.jitter=two", "backoff.jitter", "'two' is not a number");
    badValue("t.auto-startup=maybe", "autoStartup", "'maybe' is neither true nor false");
  }

  @Test
  void badQueueNamesAndUnresolvablePlaceholdersAreRefused() {
    badValue("t.queue=orders/eu", "queue = \"${t.queue:orders}\"", "'orders/eu' is not allowed");
    failsWith(TextListener.class, failure -> failure
        .hasMessageContaining("queue = \"${orders.queue}\"")
        .hasMessageContaining("orders.queue")
        .hasMessageContaining("give the placeholder a default"));
  }

  static class SameQueue {
    @DelayqListener(queue = "${t.queue}")
    void first(String text) {}
  }

  static class SameQueueAgain {
    @DelayqListener(queue = "${t.queue}", id = "other")
    void second(byte[] bytes) {}
  }

  static class SameId {
    @DelayqListener(queue = "${t.queue}-b", id = "shared")
    void one(String text) {}

    @DelayqListener(queue = "${t.queue}-c", id = "shared")
    void two(String text) {}
  }

  @Test
  void twoListenersOnOneQueueAndTwoWithOneIdAreRefused() {
    String queue = ListenerTesting.uniqueQueue("twice");
    runner.withPropertyValues("t.queue=" + queue)
        .withBean("firstListener", SameQueue.class)
        .withBean("secondListener", SameQueueAgain.class)
        .run(context -> assertThat(context.getStartupFailure()).isInstanceOf(ListenerDefinitionException.class)
            .hasMessageContaining("queue '" + queue + "' has a listener already")
            .hasMessageContaining("SameQueue.first(String) of bean 'firstListener'")
            .hasMessageContaining("SameQueueAgain.second(byte[]) of bean 'secondListener'"));
    runner.withPropertyValues("t.queue=" + queue)
        .withBean("ids", SameId.class)
        .run(context -> assertThat(context.getStartupFailure()).isInstanceOf(ListenerDefinitionException.class)
            .hasMessageContaining("id 'shared' is taken by SameId.")
            .hasMessageContaining("of bean 'ids'"));
  }

  @Configuration(proxyBeanMethods = false)
  static class PrototypeConfiguration {
    @Bean
    @Scope("prototype")
    TextListener badListener() {
      return new TextListener();
    }
  }

  @Test
  void aListenerOnAPrototypeBeanIsRefused() {
    runner.withUserConfiguration(PrototypeConfiguration.class).run(context -> assertThat(context.getStartupFailure())
        .isInstanceOf(ListenerDefinitionException.class)
        .hasMessageContaining("of bean 'badListener'")
        .hasMessageContaining("not a singleton"));
  }

  /** Like Spring Web's request scope: active only while a request runs on the thread, never on a worker. */
  static final class RequestLikeScope implements org.springframework.beans.factory.config.Scope {
    @Override
    public Object get(String name, org.springframework.beans.factory.ObjectFactory<?> objectFactory) {
      throw new IllegalStateException("No thread-bound request found");
    }

    @Override
    public Object remove(String name) {
      return null;
    }

    @Override
    public void registerDestructionCallback(String name, Runnable callback) {}

    @Override
    public Object resolveContextualObject(String key) {
      return null;
    }

    @Override
    public String getConversationId() {
      return null;
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class ScopedProxyConfiguration {
    @Bean
    static CustomScopeConfigurer requestLikeScope() {
      CustomScopeConfigurer configurer = new CustomScopeConfigurer();
      configurer.addScope("request", new RequestLikeScope());
      return configurer;
    }

    // as @RequestScope declares it: a proxy (a singleton) in front of a target per request
    @Bean
    @Scope(value = "request", proxyMode = ScopedProxyMode.TARGET_CLASS)
    TextListener badListener() {
      return new TextListener();
    }
  }

  /**
   * A scoped bean behind a scoped proxy (what {@code @RequestScope} and {@code @SessionScope}
   * make) is no singleton either: the proxy is, but every call looks the target up in a scope that
   * no worker thread has, so every job would fail on every attempt.
   */
  @Test
  void aListenerOnAScopedProxyOfANonSingletonBeanIsRefused() {
    runner.withUserConfiguration(ScopedProxyConfiguration.class).withPropertyValues("orders.queue=orders")
        .run(context -> assertThat(context.getStartupFailure())
        .isInstanceOf(ListenerDefinitionException.class)
        .hasMessageContaining("of bean 'badListener'")
        .hasMessageContaining("not a singleton"));
  }

  @Test
  void badDefaultsInPropertiesAreRefusedByName() {
    runner.withBean("textListener", TextListener.class)
        .withPropertyValues("orders.queue=q", "delayq.listener.concurrency=0")
        .run(context -> assertThat(context.getStartupFailure()).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("delayq.listener.*")
            .hasMessageContaining("concurrency: must be between 1 and 10000; got 0"));
  }

  @Configuration(proxyBeanMethods = false)
  @ImportAutoConfiguration({JacksonAutoConfiguration.class, DelayqAutoConfiguration.class,
      DelayqPayloadAutoConfiguration.class, DelayqListenerAutoConfiguration.class})
  @Import(TwoPayloads.class)
  static class BadApplication {}

  @Test
  @ExtendWith(OutputCaptureExtension.class)
  void aBadListenerIsReportedAsSpringBootReportsABadSetting(CapturedOutput output) {
    SpringApplication application = new SpringApplication(BadApplication.class);
    application.setWebApplicationType(WebApplicationType.NONE);
    application.setDefaultProperties(Map.of("delayq.redis.url", TestRedisUrl.get()));
    assertThatThrownBy(application::run).isInstanceOf(ListenerDefinitionException.class);
    assertThat(output)
        .contains("APPLICATION FAILED TO START")
        .containsPattern("Description:\\s+@DelayqListener TwoPayloads.on\\(DelayqListenerValidationTest\\$Order, String\\)")
        .containsPattern("Action:\\s+Accepted signatures: a void method");
  }
}
