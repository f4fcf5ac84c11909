package io.delayq.spring.autoconfigure;

import io.delayq.spring.PayloadConverter;
import io.delayq.spring.internal.NoJsonPayloadConverter;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * The {@link PayloadConverter}, first match wins: the application's own Jackson 3 {@code
 * JsonMapper} (Spring Boot 4's default), its Jackson 2 {@code ObjectMapper}, a plain mapper of
 * whichever Jackson is on the class path, or text and bytes only. The application's mapper comes
 * first so that its modules and naming settings shape payloads as they shape its HTTP bodies.
 */
@AutoConfiguration(
    afterName = {
      "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration",
      "org.springframework.boot.jackson2.autoconfigure.Jackson2AutoConfiguration"
    })
@Import({
  PayloadConverterConfigurations.ApplicationJackson3.class,
  PayloadConverterConfigurations.ApplicationJackson2.class,
  PayloadConverterConfigurations.DefaultJackson3.class,
  PayloadConverterConfigurations.DefaultJackson2.class
})
public class DelayqPayloadAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean(PayloadConverter.class)
  PayloadConverter delayqPayloadConverter() {
    return new NoJsonPayloadConverter();
  }
}
