package io.delayq.spring.autoconfigure;

import io.delayq.Delayq;

/**
 * Changes the {@link Delayq.Builder} after the {@code delayq.*} properties are applied and before
 * the client connects, for settings that have no property. Beans of this type run in their
 * {@link org.springframework.core.annotation.Order @Order}; a customizer may override a property.
 *
 * <pre>{@code
 * @Bean
 * DelayqBuilderCustomizer longerTimeout() {
 *   return builder -> builder.commandTimeout(Duration.ofSeconds(30));
 * }
 * }</pre>
 *
 * <p>To replace the client altogether, declare a {@link Delayq} bean of your own.
 *
 * @since 0.2.0
 */
@FunctionalInterface
public interface DelayqBuilderCustomizer {
  void customize(Delayq.Builder builder);
}
