package io.delayq.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delayq.Delayq;
import io.delayq.InvalidRequestException;
import io.delayq.JobQueue;
import io.delayq.JobRequest;
import io.delayq.ScheduledJob;
import io.delayq.spring.FreePort;
import io.delayq.spring.TestRedisUrl;
import io.delayq.spring.health.DelayqHealthIndicator;
import io.lettuce.core.RedisURI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;

/**
 * Which Redis the client connects to, which properties reach it, and which beans appear with and
 * without the optional modules, against a real Redis. Databases 11 to 14 of the test Redis tell
 * apart which settings won.
 */
class DelayqAutoConfigurationTest {
  private static final RedisURI REDIS = RedisURI.create(TestRedisUrl.get());

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  DataRedisAutoConfiguration.class,
                  DelayqAutoConfiguration.class,
                  DelayqHealthAutoConfiguration.class));

  private static String urlOfDatabase(int database) {
    return TestRedisUrl.get().replaceAll("/\\d+$", "") + "/" + database;
  }

  /** Whether the queue exists in that database of the test Redis: where the client wrote. */
  private static boolean queueIn(int database, String queue) {
    try (Delayq direct = Delayq.connect(urlOfDatabase(database))) {
      return direct.existingQueue(queue).isPresent();
    }
  }

  private static String touchQueue(AssertableApplicationContext context) {
    String queue = "boot-" + UUID.randomUUID().toString().substring(0, 8);
    context.getBean(Delayq.class).queue(queue).schedule(JobRequest.of("x").withDelay(Duration.ofHours(1)));
    return queue;
  }

  private static DelayqStartupException startupFailure(AssertableApplicationContext context) {
    assertThat(context).hasFailed();
    Throwable t = context.getStartupFailure();
    while (t != null && !(t instanceof DelayqStartupException)) {
      t = t.getCause();
    }
    assertThat(t).as("a DelayqStartupException among the causes of %s", context.getStartupFailure()).isNotNull();
    return (DelayqStartupException) t;
  }

  @Test
  void delayqRedisUrlIsUsed() {
    runner.withPropertyValues("delayq.redis.url=" + urlOfDatabase(11)).run(context -> {
      String queue = touchQueue(context);
      assertThat(queueIn(11, queue)).isTrue();
      assertThat(queueIn(12, queue)).isFalse();
    });
  }

  @Test
  void withoutDelayqRedisUrlTheApplicationsSpringDataRedisSettingsAreFollowed() {
    runner
        .withPropertyValues(
            "spring.data.redis.host=" + REDIS.getHost(),
            "spring.data.redis.port=" + REDIS.getPort(),
            "spring.data.redis.database=12")
        .run(context -> {
          String queue = touchQueue(context);
          assertThat(queueIn(12, queue)).isTrue();
          assertThat(queueIn(11, queue)).isFalse();
        });
  }

  @Test
  void delayqRedisUrlWinsOverSpringDataRedis() {
    runner
        .withPropertyValues(
            "spring.data.redis.host=127.0.0.1",
            "spring.data.redis.port=" + FreePort.get(),
            "delayq.redis.url=" + urlOfDatabase(13))
        .run(context -> assertThat(queueIn(13, touchQueue(context))).isTrue());
  }

  @Test
  void connectionDetailsOfAServiceConnectionWinOverSpringDataRedisProperties() {
    DataRedisConnectionDetails serviceConnection =
        new DataRedisConnectionDetails() {
          @Override
          public Standalone getStandalone() {
            return Standalone.of(REDIS.getHost(), REDIS.getPort(), 14);
          }
        };
    runner
        .withPropertyValues("spring.data.redis.port=" + FreePort.get())
        .withBean(DataRedisConnectionDetails.class, () -> serviceConnection)
        .run(context -> assertThat(queueIn(14, touchQueue(context))).isTrue());
  }

  @Test
  void withSpringDataRedisButNoSettingsBootsDefaultLocalhostIsFollowed() {
    Delayq own = Delayq.connect(TestRedisUrl.get());
    try {
      runner.withBean(Delayq.class, () -> own).run(context ->
          assertThat(context.getBean(DelayqAutoConfiguration.ApplicationRedis.class).target().url())
              .isEqualTo("redis://localhost:6379"));
    } finally {
      own.close();
    }
  }

  /** The URL Boot's own property binding and connection details lead to, with the client replaced. */
  private void assertApplicationRedisUrl(String expected, String... properties) {
    Delayq own = Delayq.connect(TestRedisUrl.get());
    try {
      runner.withBean(Delayq.class, () -> own).withPropertyValues(properties).run(context ->
          assertThat(context.getBean(DelayqAutoConfiguration.ApplicationRedis.class).target().url()).isEqualTo(expected));
    } finally {
      own.close();
    }
  }

  @Test
  void springDataRedisPropertiesOfEachKindBecomeTheUrl() {
    assertApplicationRedisUrl("rediss://:pw@cache:6380/4",
        "spring.data.redis.host=cache", "spring.data.redis.port=6380", "spring.data.redis.database=4",
        "spring.data.redis.password=pw", "spring.data.redis.ssl.enabled=true");
    assertApplicationRedisUrl("rediss://app:s%3Acret@cache:6390/2", "spring.data.redis.url=rediss://app:s%3Acret@cache:6390/2");
    assertApplicationRedisUrl("redis://n1:7000,n2:7001", "spring.data.redis.cluster.nodes=n1:7000,n2:7001");
    assertApplicationRedisUrl("redis-sentinel://s1:26379,s2:26380#mymaster",
        "spring.data.redis.sentinel.master=mymaster", "spring.data.redis.sentinel.nodes=s1:26379,s2:26380");
  }

  @Test
  void withoutSpringDataRedisAndWithoutAUrlStartupFailsSayingWhatToSet() {
    new ApplicationContextRunner()
        .withClassLoader(new FilteredClassLoader("org.springframework.boot.data.redis", "io.delayq.embedded"))
        .withConfiguration(AutoConfigurations.of(DelayqAutoConfiguration.class))
        .run(context -> {
          DelayqStartupException failure = startupFailure(context);
          assertThat(failure.description()).contains("no Redis to connect to");
          assertThat(failure.action()).contains("delayq.redis.url=redis://");
        });
  }

  @Test
  void withNoRedisConfiguredAndDelayqEmbeddedPresentAnEmbeddedRedisServesTheClientAndStopsWithIt() {
    long[] pid = new long[1];
    new ApplicationContextRunner()
        .withClassLoader(new FilteredClassLoader("org.springframework.boot.data.redis"))
        .withConfiguration(AutoConfigurations.of(DelayqAutoConfiguration.class))
        .run(context -> {
          assertThat(context).hasNotFailed();
          JobQueue queue = context.getBean(Delayq.class).queue("embedded-dev");
          ScheduledJob job = queue.schedule(JobRequest.of("hello").withDelay(Duration.ofHours(1)));
          assertThat(queue.get(job.id())).isPresent();
          pid[0] = context.getBean(EmbeddedRedis.class).pid();
          assertThat(ProcessHandle.of(pid[0])).hasValueSatisfying(p -> assertThat(p.isAlive()).isTrue());
        });
    Awaitility.await().atMost(Duration.ofSeconds(15))
        .until(() -> ProcessHandle.of(pid[0]).map(p -> !p.isAlive()).orElse(true));
  }

  @Test
  void anEmbeddedRedisWithADataDirKeepsJobsAcrossARestartOfTheApplication(@TempDir Path dataDir) {
    ApplicationContextRunner app = new ApplicationContextRunner()
        .withClassLoader(new FilteredClassLoader("org.springframework.boot.data.redis"))
        .withConfiguration(AutoConfigurations.of(DelayqAutoConfiguration.class))
        .withPropertyValues("delayq.redis.embedded.data-dir=" + dataDir);
    String[] id = new String[1];
    app.run(context -> id[0] = context.getBean(Delayq.class).queue("embedded-durable")
        .schedule(JobRequest.of("kept").withDelay(Duration.ofHours(1))).id());
    app.run(context -> assertThat(context.getBean(Delayq.class).queue("embedded-durable").get(id[0]))
        .hasValueSatisfying(info -> assertThat(info.payloadAsString()).isEqualTo("kept")));
  }

  @Test
  void aConfiguredRedisNeverStartsTheEmbeddedOne() {
    runner
        .withPropertyValues("delayq.redis.url=" + TestRedisUrl.get())
        .run(context -> assertThat(context.getBean(EmbeddedRedis.class).pid()).isEqualTo(-1));
  }

  @Test
  void theEmbeddedRedisCanBeTurnedOff() {
    new ApplicationContextRunner()
        .withClassLoader(new FilteredClassLoader("org.springframework.boot.data.redis"))
        .withConfiguration(AutoConfigurations.of(DelayqAutoConfiguration.class))
        .withPropertyValues("delayq.redis.embedded.enabled=false")
        .run(context -> assertThat(startupFailure(context).description()).contains("no Redis to connect to"));
  }

  @Test
  void withoutSpringDataRedisTheUrlStillWorks() {
    new ApplicationContextRunner()
        .withClassLoader(new FilteredClassLoader("org.springframework.boot.data.redis"))
        .withConfiguration(AutoConfigurations.of(DelayqAutoConfiguration.class))
        .withPropertyValues("delayq.redis.url=" + TestRedisUrl.get())
        .run(context -> {
          assertThat(context).hasSingleBean(Delayq.class);
          assertThat(context).doesNotHaveBean(DelayqAutoConfiguration.ApplicationRedis.class);
        });
  }

  @Test
  void aMalformedUrlFailsStartupNamingTheProperty() {
    runner.withPropertyValues("delayq.redis.url=http://localhost:6379").run(context -> {
      DelayqStartupException failure = startupFailure(context);
      assertThat(failure.description()).contains("delayq.redis.url").contains("redis://");
      assertThat(failure.action()).startsWith("Fix delayq.redis.url");
    });
  }

  @Test
  void anUnreachableRedisFailsStartupNamingWhereTheUrlCameFrom() {
    int port = FreePort.get();
    runner.withPropertyValues("spring.data.redis.port=" + port, "delayq.command-timeout=2s").run(context -> {
      DelayqStartupException failure = startupFailure(context);
      assertThat(failure.description()).contains("cannot reach Redis at redis://localhost:" + port);
      assertThat(failure.action()).contains("spring.data.redis").contains("delayq.redis.url");
    });
  }

  @Test
  void propertiesReachTheBuilder() {
    runner
        .withPropertyValues("delayq.redis.url=" + TestRedisUrl.get(), "delayq.max-payload-size=16B")
        .run(context -> {
          var queue = context.getBean(Delayq.class).queue("boot-payload-" + UUID.randomUUID().toString().substring(0, 8));
          queue.schedule(JobRequest.of("x".repeat(16)).withDelay(Duration.ofHours(1)));
          assertThatThrownBy(() -> queue.schedule(JobRequest.of("x".repeat(17))))
              .isInstanceOf(InvalidRequestException.class)
              .hasMessageContaining("17");
        });
  }

  @Test
  void aValueTheBuilderRefusesFailsStartupNamingTheProperty() {
    runner
        .withPropertyValues("delayq.redis.url=" + TestRedisUrl.get(), "delayq.dead-letter.limit=0")
        .run(context -> {
          DelayqStartupException failure = startupFailure(context);
          assertThat(failure.description()).contains("delayq.dead-letter.limit").contains("got 0");
          assertThat(failure.action()).contains("delayq.dead-letter.limit");
        });
  }

  @Test
  void customizersRunInTheirOrderAfterTheProperties() {
    runner
        .withPropertyValues("delayq.redis.url=" + TestRedisUrl.get(), "delayq.max-payload-size=16B")
        .withUserConfiguration(Customizers.class)
        .run(context -> {
          assertThat(context.getBean(Customizers.class).calls).containsExactly("first", "second");
          var queue = context.getBean(Delayq.class).queue("boot-custom-" + UUID.randomUUID().toString().substring(0, 8));
          // the second customizer set 8 bytes, over the property's 16
          assertThatThrownBy(() -> queue.schedule(JobRequest.of("x".repeat(9)))).isInstanceOf(InvalidRequestException.class);
        });
  }

  @Configuration(proxyBeanMethods = false)
  static class Customizers {
    final List<String> calls = new CopyOnWriteArrayList<>();

    @Bean
    @Order(2)
    DelayqBuilderCustomizer second() {
      return builder -> {
        calls.add("second");
        builder.maxPayloadBytes(8);
      };
    }

    @Bean
    @Order(1)
    DelayqBuilderCustomizer first() {
      return builder -> calls.add("first");
    }
  }

  @Test
  void aUsersOwnClientWinsAndStillGetsTheHealthIndicator() {
    Delayq own = Delayq.builder().redisUrl(TestRedisUrl.get()).build();
    try {
      runner.withBean(Delayq.class, () -> own).run(context -> {
        assertThat(context).getBean(Delayq.class).isSameAs(own);
        assertThat(context).hasSingleBean(DelayqHealthIndicator.class);
      });
    } finally {
      own.close();
    }
  }

  @Test
  void theHealthIndicatorIsThereByDefaultAndCanBeTurnedOff() {
    ApplicationContextRunner withUrl = runner.withPropertyValues("delayq.redis.url=" + TestRedisUrl.get());
    withUrl.run(context -> assertThat(context).hasSingleBean(DelayqHealthIndicator.class));
    withUrl
        .withPropertyValues("management.health.delayq.enabled=false")
        .run(context -> assertThat(context).hasSingleBean(Delayq.class).doesNotHaveBean(DelayqHealthIndicator.class));
  }

  @Test
  void aUsersOwnHealthIndicatorNamedDelayqWins() {
    HealthIndicator own = () -> Health.up().withDetail("mine", true).build();
    runner
        .withPropertyValues("delayq.redis.url=" + TestRedisUrl.get())
        .withBean("delayqHealthIndicator", HealthIndicator.class, () -> own)
        .run(context -> {
          assertThat(context).doesNotHaveBean(DelayqHealthIndicator.class);
          assertThat(context.getBean("delayqHealthIndicator")).isSameAs(own);
        });
  }

  @Test
  void withoutSpringBootHealthThereIsNoIndicatorAndTheClientWorks() {
    runner
        .withClassLoader(new FilteredClassLoader("org.springframework.boot.health"))
        .withPropertyValues("delayq.redis.url=" + TestRedisUrl.get())
        .run(context -> {
          assertThat(context).hasNotFailed().hasSingleBean(Delayq.class);
          assertThat(context.getBeanNamesForType(DelayqHealthIndicator.class)).isEmpty();
        });
  }

  @Test
  void withoutMicrometerTheStarterWorks() {
    runner
        .withClassLoader(new FilteredClassLoader("io.micrometer"))
        .withPropertyValues("delayq.redis.url=" + TestRedisUrl.get())
        .run(context -> assertThat(context).hasNotFailed().hasSingleBean(Delayq.class).hasSingleBean(DelayqHealthIndicator.class));
  }

  @Test
  void withoutAnyOptionalModuleTheUrlAloneWorks() {
    new ApplicationContextRunner()
        .withClassLoader(new FilteredClassLoader("org.springframework.boot.data.redis", "org.springframework.boot.health", "io.micrometer"))
        .withConfiguration(AutoConfigurations.of(DelayqAutoConfiguration.class, DelayqHealthAutoConfiguration.class))
        .withPropertyValues("delayq.redis.url=" + TestRedisUrl.get())
        .run(context -> assertThat(context).hasNotFailed().hasSingleBean(Delayq.class));
  }
}
