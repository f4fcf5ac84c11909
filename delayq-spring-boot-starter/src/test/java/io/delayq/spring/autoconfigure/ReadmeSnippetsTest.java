package io.delayq.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayq.Delayq;
import io.delayq.spring.TestRedisUrl;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.unit.DataSize;

/** The snippets of the README's Spring Boot section, compiled and run here. */
class ReadmeSnippetsTest {

  // README: customizer
  @Configuration(proxyBeanMethods = false)
  static class DelayqSettings {
    @Bean
    DelayqBuilderCustomizer slowNetwork() {
      return builder -> builder.commandTimeout(Duration.ofSeconds(30));
    }
  }
  // README: end

  @Test
  void thePropertiesOfTheReadmeBindAndTheCustomizerRuns() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(DelayqAutoConfiguration.class, DelayqHealthAutoConfiguration.class))
        .withUserConfiguration(DelayqSettings.class)
        .withPropertyValues(
            // README: properties
            "delayq.redis.url=" + TestRedisUrl.get(), // e.g. redis://localhost:6379
            "delayq.command-timeout=5s",
            "delayq.max-payload-size=256KB",
            "delayq.dead-letter.retention=7d",
            "delayq.refuse-evicting-redis=true",
            "delayq.health.queues=invoices,reminders",
            "delayq.health.stuck-after-sweeps=60"
            // README: end
            )
        .run(context -> {
          assertThat(context).hasNotFailed().hasSingleBean(Delayq.class);
          DelayqProperties properties = context.getBean(DelayqProperties.class);
          assertThat(properties.getMaxPayloadSize()).isEqualTo(DataSize.ofKilobytes(256));
          assertThat(properties.getDeadLetter().getRetention()).isEqualTo(Duration.ofDays(7));
          assertThat(properties.getHealth().getQueues()).containsExactly("invoices", "reminders");
          assertThat(properties.getHealth().stuckAfter()).isEqualTo(Duration.ofMinutes(1));
        });
  }
}
