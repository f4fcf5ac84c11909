package io.delayq.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayq.Delayq;
import io.delayq.spring.autoconfigure.DelayqAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class DelayqAutoConfigurationTest {
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(DelayqAutoConfiguration.class));

  @Test
  void aUsersOwnClientWins() {
    Delayq own = Delayq.builder().redisUrl(TestRedisUrl.get()).build();
    runner
        .withBean(Delayq.class, () -> own)
        .run(context -> assertThat(context).getBean(Delayq.class).isSameAs(own));
    own.close();
  }
}
