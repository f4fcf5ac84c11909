package io.delayq.spring.autoconfigure;

import io.delayq.Delayq;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/** The {@link Delayq} client, from {@code delayq.*} properties. */
@AutoConfiguration
@EnableConfigurationProperties(DelayqProperties.class)
public class DelayqAutoConfiguration {

  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public Delayq delayq(DelayqProperties properties) {
    return Delayq.builder().redisUrl(properties.getRedis().getUrl()).build();
  }
}
