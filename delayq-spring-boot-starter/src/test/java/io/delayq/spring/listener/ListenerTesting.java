package io.delayq.spring.listener;

import io.delayq.spring.TestRedisUrl;
import io.delayq.spring.autoconfigure.DelayqAutoConfiguration;
import io.delayq.spring.autoconfigure.DelayqListenerAutoConfiguration;
import io.delayq.spring.autoconfigure.DelayqPayloadAutoConfiguration;
import java.util.UUID;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The context the listener tests run: the starter's auto-configurations on the test Redis. */
final class ListenerTesting {
  private ListenerTesting() {}

  static ApplicationContextRunner runner() {
    return new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, DelayqAutoConfiguration.class,
            DelayqPayloadAutoConfiguration.class, DelayqListenerAutoConfiguration.class))
        .withPropertyValues("delayq.redis.url=" + TestRedisUrl.get());
  }

  /** A queue name no other test (or earlier run on the same Redis) uses. */
  static String uniqueQueue(String purpose) {
    return "test-listener-" + purpose + "-" + UUID.randomUUID().toString().substring(0, 8);
  }
}
