package io.delayq.spring.sentinel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.embedded.RedisSentinelProcesses;
import io.delayq.embedded.RedisServerProcess;
import io.delayq.spring.DelayqTemplate;
import io.delayq.spring.autoconfigure.DelayqAutoConfiguration;
import io.delayq.spring.autoconfigure.DelayqListenerAutoConfiguration;
import io.delayq.spring.autoconfigure.DelayqPayloadAutoConfiguration;
import io.delayq.spring.autoconfigure.DelayqTemplateAutoConfiguration;
import io.delayq.spring.listener.DelayqListener;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * An application whose Redis is a Sentinel-managed primary, configured only as Spring teams do
 * (spring.data.redis.sentinel.*): delayq finds the master through the Sentinels and keeps working
 * across a failover, without a restart.
 */
class SpringDataSentinelIT {
  private static final String PASSWORD = "sentinel-and-master";

  static class Received {
    final Set<String> payloads = ConcurrentHashMap.newKeySet();

    @DelayqListener(queue = "sentinel-orders")
    void on(String payload) {
      payloads.add(payload);
    }
  }

  @Test
  void spring_data_redis_sentinel_settingsReachTheMasterAndFollowAFailover() {
    try (RedisSentinelProcesses redis =
        RedisSentinelProcesses.builder().password(PASSWORD).sentinelPassword(PASSWORD).start()) {
      String nodes = redis.sentinels().stream().map(s -> "127.0.0.1:" + s.port()).collect(Collectors.joining(","));
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
              DelayqAutoConfiguration.class, DelayqPayloadAutoConfiguration.class,
              DelayqTemplateAutoConfiguration.class, DelayqListenerAutoConfiguration.class))
          .withBean(Received.class)
          .withPropertyValues(
              "spring.data.redis.sentinel.master=" + redis.masterName(),
              "spring.data.redis.sentinel.nodes=" + nodes,
              "spring.data.redis.sentinel.password=" + PASSWORD,
              "spring.data.redis.password=" + PASSWORD)
          .run(context -> {
            assertThat(context).hasNotFailed();
            DelayqTemplate delayq = context.getBean(DelayqTemplate.class);
            Received received = context.getBean(Received.class);
            delayq.schedule("sentinel-orders", "before", Duration.ZERO);
            await().atMost(Duration.ofSeconds(10)).until(() -> received.payloads.contains("before"));

            RedisServerProcess old = redis.master();
            redis.failover();
            redis.awaitNewMaster(old, Duration.ofSeconds(30));
            // the client follows the new master by itself: schedules go through again, and the
            // listener, never restarted, gets them
            await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
              delayq.schedule("sentinel-orders", "after", Duration.ZERO);
              return true;
            });
            await().atMost(Duration.ofSeconds(30)).until(() -> received.payloads.contains("after"));
          });
    }
  }
}
