package io.delayq.spring.autoconfigure;

import io.delayq.Delayq;
import io.delayq.spring.health.DelayqHealthIndicator;
import io.delayq.spring.internal.forward.ForwardingLifecycle;
import io.delayq.spring.internal.listener.ScheduleRegistry;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@code delayq} health indicator, when spring-boot-health is on the classpath and a {@link
 * Delayq} bean exists; {@code management.health.delayq.enabled=false} turns it off, and a bean of
 * the application's own named {@code delayqHealthIndicator} replaces it. It reports the forwarders
 * and adoption bridges of {@link DelayqForwardingAutoConfiguration}, and the schedules of {@link
 * DelayqScheduleAutoConfiguration}, too.
 *
 * @since 0.2.0
 */
@AutoConfiguration(after = DelayqAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
public class DelayqHealthAutoConfiguration {

  // why: a nested class, so that the enabled-indicator condition, itself a class of
  // spring-boot-health, is only read once the outer class found spring-boot-health
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnBean(Delayq.class)
  @ConditionalOnEnabledHealthIndicator("delayq")
  @EnableConfigurationProperties(DelayqProperties.class)
  static class Indicator {

    @Bean
    @ConditionalOnMissingBean(name = "delayqHealthIndicator")
    DelayqHealthIndicator delayqHealthIndicator(Delayq delayq, DelayqProperties properties,
        ObjectProvider<ForwardingLifecycle> forwarding, ObjectProvider<ScheduleRegistry> schedules) {
      return new DelayqHealthIndicator(delayq, properties,
          () -> forwarding.stream().flatMap(f -> f.forwarders().stream()).toList(),
          () -> forwarding.stream().flatMap(f -> f.bridges().stream()).toList(),
          () -> schedules.stream().findFirst().map(ScheduleRegistry::names).orElse(Map.of()));
    }
  }
}
