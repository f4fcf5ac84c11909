package io.delayq.spring.autoconfigure;

import io.delayq.Delayq;
import io.delayq.spring.PayloadConverter;
import io.delayq.spring.internal.listener.ListenerMethodProcessor;
import io.delayq.spring.internal.listener.ListenerRegistry;
import io.delayq.spring.listener.DelayqListener;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * {@link DelayqListener} methods and their {@link io.delayq.spring.listener.DelayqListenerRegistry}: found and checked once every singleton exists, started once the
 * context is refreshed, stopped before the {@link Delayq} client closes. Defaults under {@code
 * delayq.listener.*}; virtual threads run the handlers when {@code spring.threads.virtual.enabled}
 * is set on Java 21 or later.
 *
 * @since 0.3.0
 */
@AutoConfiguration(after = {DelayqAutoConfiguration.class, DelayqPayloadAutoConfiguration.class})
@EnableConfigurationProperties(DelayqListenerProperties.class)
public class DelayqListenerAutoConfiguration {

  /**
   * The registry of listener containers.
   *
   * @param delayq taken so that the client is destroyed after the registry, whose containers use it
   */
  @Bean
  public ListenerRegistry delayqListenerRegistry(Delayq delayq) {
    return new ListenerRegistry();
  }

  @Bean
  ListenerMethodProcessor delayqListenerMethodProcessor(ListenerRegistry delayqListenerRegistry, Delayq delayq,
      PayloadConverter payloadConverter, DelayqListenerProperties properties, Environment environment) {
    return new ListenerMethodProcessor(delayqListenerRegistry, delayq, payloadConverter, properties, environment);
  }
}
