package io.delayq.spring.schedule;

import io.delayq.Delayq;
import io.delayq.ScheduleInfo;
import io.delayq.spring.TestRedisUrl;
import io.delayq.spring.autoconfigure.DelayqAutoConfiguration;
import io.delayq.spring.autoconfigure.DelayqForwardingAutoConfiguration;
import io.delayq.spring.autoconfigure.DelayqHealthAutoConfiguration;
import io.delayq.spring.autoconfigure.DelayqListenerAutoConfiguration;
import io.delayq.spring.autoconfigure.DelayqPayloadAutoConfiguration;
import io.delayq.spring.autoconfigure.DelayqScheduleAutoConfiguration;
import java.util.UUID;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The context the schedule tests run: the starter's auto-configurations on the test Redis. */
final class ScheduleTesting {
  private ScheduleTesting() {}

  static ApplicationContextRunner runner() {
    return new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, DelayqAutoConfiguration.class,
            DelayqPayloadAutoConfiguration.class, DelayqListenerAutoConfiguration.class,
            DelayqForwardingAutoConfiguration.class, DelayqScheduleAutoConfiguration.class,
            DelayqHealthAutoConfiguration.class))
        .withPropertyValues("delayq.redis.url=" + TestRedisUrl.get());
  }

  /** A queue name no other test (or earlier run on the same Redis) uses. */
  static String uniqueQueue(String purpose) {
    return "test-schedule-" + purpose + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  /** Removes the queue's schedules, then the queue, so that nothing of a test stays in Redis. */
  static void cleanUp(Delayq delayq, String queue) {
    delayq.existingQueue(queue).ifPresent(q -> {
      for (ScheduleInfo info : q.schedules().list()) {
        q.schedules().remove(info.name());
      }
      q.admin().delete(true);
    });
  }
}
