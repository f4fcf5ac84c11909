package io.delayq.spring.autoconfigure;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayq.spring.PayloadConverter;
import io.delayq.spring.internal.Jackson2PayloadConverter;
import io.delayq.spring.internal.JacksonPayloadConverter;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.json.JsonMapper;

/**
 * The ways to make a {@link PayloadConverter}, imported in order by {@link
 * DelayqPayloadAutoConfiguration}. They live outside it because the member classes of a
 * configuration class are not processed in a guaranteed order, and here the order decides.
 */
abstract class PayloadConverterConfigurations {
  private PayloadConverterConfigurations() {}

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "tools.jackson.databind.json.JsonMapper")
  @ConditionalOnBean(type = "tools.jackson.databind.json.JsonMapper")
  @ConditionalOnMissingBean(PayloadConverter.class)
  static class ApplicationJackson3 {
    @Bean
    PayloadConverter delayqPayloadConverter(JsonMapper mapper) {
      return new JacksonPayloadConverter(mapper);
    }
  }

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "com.fasterxml.jackson.databind.ObjectMapper")
  @ConditionalOnBean(type = "com.fasterxml.jackson.databind.ObjectMapper")
  @ConditionalOnMissingBean(PayloadConverter.class)
  static class ApplicationJackson2 {
    @Bean
    PayloadConverter delayqPayloadConverter(ObjectMapper mapper) {
      return new Jackson2PayloadConverter(mapper);
    }
  }

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "tools.jackson.databind.json.JsonMapper")
  @ConditionalOnMissingBean(PayloadConverter.class)
  static class DefaultJackson3 {
    @Bean
    PayloadConverter delayqPayloadConverter() {
      return new JacksonPayloadConverter(JsonMapper.builder().findAndAddModules().build());
    }
  }

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "com.fasterxml.jackson.databind.ObjectMapper")
  @ConditionalOnMissingBean(PayloadConverter.class)
  static class DefaultJackson2 {
    @Bean
    PayloadConverter delayqPayloadConverter() {
      return new Jackson2PayloadConverter(new ObjectMapper().findAndRegisterModules());
    }
  }
}
