package io.delayq.spring.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayq.Delayq;
import io.delayq.ScheduleInfo;
import io.delayq.spring.TestRedisUrl;
import io.delayq.spring.listener.DelayqListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.aopalliance.intercept.MethodInterceptor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.aop.framework.autoproxy.BeanNameAutoProxyCreator;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.MutablePropertySources;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * Hostile startup attacks on {@code @DelayqScheduled} and {@code delayq.schedules.*}: what a
 * careless user writes must either fail the start naming what to change, or do what it says.
 * Tests that fail here are findings (see the report of branch wt-sched-spring-attack).
 */
class ScheduleAttackTest {
  private final ApplicationContextRunner runner = ScheduleTesting.runner();
  private final List<String> queues = new ArrayList<>();
  private Delayq delayq;

  @BeforeEach
  void connect() {
    delayq = Delayq.connect(TestRedisUrl.get());
  }

  @AfterEach
  void cleanUp() {
    queues.forEach(queue -> ScheduleTesting.cleanUp(delayq, queue));
    delayq.close();
  }

  private String queue(String purpose) {
    String queue = ScheduleTesting.uniqueQueue(purpose);
    queues.add(queue);
    return queue;
  }

  private static String messages(Throwable failure) {
    List<String> messages = new ArrayList<>();
    for (Throwable t = failure; t != null; t = t.getCause()) {
      messages.add(t.getClass().getSimpleName() + ": " + t.getMessage());
    }
    return String.join("\n", messages);
  }

  static class Listener {
    @DelayqListener(queue = "${test.queue}")
    void on(String text) {}
  }

  // --- overloads, several beans, prototypes ---

  static class Overloaded {
    @DelayqScheduled(queue = "${test.queue}", every = "1m")
    void run() {}

    @DelayqScheduled(queue = "${test.queue}", every = "2m")
    void run(io.delayq.LeasedJob job) {}
  }

  @Test
  void overloadsWithTheDefaultNameFailTheStartNamingBothMethods() {
    String queue = queue("overloaded");
    runner.withBean("jobs", Overloaded.class).withPropertyValues("test.queue=" + queue).run(context -> {
      assertThat(context).hasFailed();
      assertThat(messages(context.getStartupFailure()))
          .contains("schedule 'jobs.run' of queue '" + queue + "' is declared by")
          .contains("Overloaded.run()").contains("Overloaded.run(LeasedJob)")
          .contains("own name");
      assertThat(delayq.queue(queue).schedules().list()).isEmpty();
    });
  }

  static class FirstBean {
    @DelayqScheduled(queue = "${test.queue}", name = "report", every = "1m")
    void run() {}
  }

  static class SecondBean {
    @DelayqScheduled(queue = "${test.queue}", name = "report", every = "5m")
    void other() {}
  }

  @Test
  void twoBeansDeclaringOneNameOnOneQueueFailTheStart() {
    String queue = queue("two-beans");
    runner.withBean("first", FirstBean.class).withBean("second", SecondBean.class)
        .withPropertyValues("test.queue=" + queue)
        .run(context -> {
          assertThat(context).hasFailed();
          assertThat(messages(context.getStartupFailure())).contains("schedule 'report' of queue '" + queue + "'")
              .contains("of bean 'first'").contains("of bean 'second'");
          assertThat(delayq.queue(queue).schedules().list()).isEmpty();
        });
  }

  @Test
  void aMethodAndAPropertyDeclaringOneNameOnOneQueueFailTheStart() {
    String queue = queue("method-and-property");
    runner.withBean("first", FirstBean.class).withBean(Listener.class)
        .withPropertyValues("test.queue=" + queue, "delayq.schedules.report.queue=" + queue,
            "delayq.schedules.report.every=1h")
        .run(context -> {
          assertThat(context).hasFailed();
          assertThat(messages(context.getStartupFailure())).contains("schedule 'report' of queue '" + queue + "'")
              .contains("delayq.schedules.report");
          assertThat(delayq.queue(queue).schedules().list()).isEmpty();
        });
  }

  @Test
  void aPrototypeBeanIsRefused() {
    String queue = queue("prototype");
    runner.withBean("proto", FirstBean.class, FirstBean::new, bd -> bd.setScope(BeanDefinition.SCOPE_PROTOTYPE))
        .withPropertyValues("test.queue=" + queue)
        .run(context -> {
          assertThat(context).hasFailed();
          assertThat(messages(context.getStartupFailure())).contains("of bean 'proto'").contains("not a singleton");
        });
  }

  /** A bean registered without a name gets its class name, {@code ...ScheduleAttackTest$Unnamed}. */
  static class Unnamed {
    @DelayqScheduled(queue = "${test.queue}", every = "1m")
    void run() {}
  }

  @Test
  void aDefaultNameThatIsNotAValidScheduleNameSaysToGiveOne() {
    String queue = queue("unnamed");
    runner.withBean(Unnamed.class).withPropertyValues("test.queue=" + queue).run(context -> {
      if (context.getStartupFailure() == null) {
        // a bean name that happens to be valid: then it must have been stored under it
        assertThat(delayq.queue(queue).schedules().list()).hasSize(1);
        return;
      }
      // why: the user wrote no name; a refusal must say which name was made and that it is not valid
      assertThat(messages(context.getStartupFailure())).contains("name = \"").contains("Unnamed.run")
          .contains("not a valid schedule name");
    });
  }

  // --- proxies ---

  interface Job {
    void work();
  }

  static class JobImpl implements Job {
    @Override
    public void work() {}

    @DelayqScheduled(queue = "${test.queue}", name = "not-on-interface", every = "1m")
    public void notOnTheInterface() {}
  }

  @Test
  void aMethodAJdkProxyCannotReachFailsTheStartClearly() {
    String queue = queue("jdk-unreachable");
    runner.withBean("job", JobImpl.class)
        .withBean("proxies", BeanNameAutoProxyCreator.class, () -> {
          BeanNameAutoProxyCreator creator = new BeanNameAutoProxyCreator();
          creator.setBeanNames("job");
          creator.setInterceptorNames("passThrough");
          return creator;
        })
        .withBean("passThrough", MethodInterceptor.class, () -> invocation -> invocation.proceed())
        .withPropertyValues("test.queue=" + queue)
        .run(context -> {
          assertThat(context).hasFailed();
          assertThat(messages(context.getStartupFailure())).contains("of bean 'job'").contains("notOnTheInterface");
          assertThat(delayq.queue(queue).schedules().list()).isEmpty();
        });
  }

  // --- placeholders that resolve to nothing ---

  static class QueueFromPlaceholder {
    @DelayqScheduled(queue = "${digest.queue:}", name = "digest", every = "1h")
    void run() {}
  }

  /**
   * An explicit queue attribute whose placeholder resolves to nothing (an environment variable set
   * but empty) must fail the start, as it does for {@code @DelayqListener}; it must not move the
   * schedule silently to the default queue.
   */
  @Test
  void aQueuePlaceholderThatResolvesToNothingFailsTheStart() {
    String fallback = queue("empty-queue-fallback");
    runner.withBean("digestJob", QueueFromPlaceholder.class)
        .withPropertyValues("digest.queue=", "delayq.schedules.default-queue=" + fallback)
        .run(context -> {
          boolean storedOnTheDefault = delayq.existingQueue(fallback)
              .map(q -> q.schedules().get("digest").isPresent()).orElse(false);
          assertThat(storedOnTheDefault).as("schedule moved silently to the default queue").isFalse();
          assertThat(context).hasFailed();
          assertThat(messages(context.getStartupFailure())).contains("queue");
        });
  }

  @Test
  void aQueuePropertyThatIsEmptyFailsTheStart() {
    String fallback = queue("empty-queue-property");
    runner.withBean(Listener.class)
        .withPropertyValues("test.queue=" + fallback, "delayq.schedules.default-queue=" + fallback,
            "delayq.schedules.digest.queue=", "delayq.schedules.digest.every=1h")
        .run(context -> {
          // why: the listener is on the default queue here, so a silent fallback starts fine
          boolean storedOnTheDefault = delayq.existingQueue(fallback)
              .map(q -> q.schedules().get("digest").isPresent()).orElse(false);
          assertThat(storedOnTheDefault).as("schedule moved silently to the default queue").isFalse();
          assertThat(context).hasFailed();
        });
  }

  static class EveryFromPlaceholder {
    @DelayqScheduled(queue = "${test.queue}", every = "${test.every:}")
    void run() {}
  }

  @Test
  void anIntervalPlaceholderThatResolvesToNothingFailsTheStart() {
    String queue = queue("empty-every");
    runner.withBean("job", EveryFromPlaceholder.class).withPropertyValues("test.queue=" + queue, "test.every=")
        .run(context -> {
          assertThat(context).hasFailed();
          assertThat(messages(context.getStartupFailure())).contains("of bean 'job'").contains("neither is set");
        });
  }

  // --- wrong values, annotation and properties ---

  static class Attack {
    @DelayqScheduled(queue = "${test.queue}", name = "attack", every = "${a.every:}", cron = "${a.cron:}",
        misfire = "${a.misfire:}", grace = "${a.grace:}", zone = "${a.zone:}", maxAttempts = "${a.max:}",
        overlap = "${a.overlap:}")
    void run() {}
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
    "a.every=abc | every | abc",
    "a.every=0s | every |",
    "a.every=500ms | every |",
    "a.every=1001d | every |",
    "a.every=-5s | every |",
    "a.misfire=run-up-to:0 | misfire | between 1 and 1000",
    "a.misfire=run-up-to:1001 | misfire |",
    "a.misfire=run-up-to:-1 | misfire |",
    "a.misfire=run-up-to: | misfire |",
    "a.grace=-1s | grace |",
    "a.grace=0s | grace |",
    "a.grace=abc | grace | abc",
    "a.zone=Mars/Olympus | zone | Mars/Olympus",
    "a.zone=+25:00 | zone |",
    "a.max=0 | maxAttempts |",
    "a.max=abc | maxAttempts | abc",
    "a.max=99999999999 | maxAttempts |",
    "a.overlap=never | overlap | never",
  })
  void aBadAttributeValueFailsTheStartNamingTheAttribute(String property, String attribute, String detail) {
    String queue = queue("bad-attribute");
    List<String> values = new ArrayList<>(List.of("test.queue=" + queue, property));
    if (!property.startsWith("a.every") && !property.startsWith("a.cron")) {
      values.add("a.every=1m");
    }
    runner.withBean("attack", Attack.class).withPropertyValues(values.toArray(String[]::new)).run(context -> {
      assertThat(context).as(property).hasFailed();
      assertThat(messages(context.getStartupFailure())).contains("of bean 'attack'").contains(attribute + " = ")
          .contains(detail == null ? "" : detail);
      assertThat(delayq.queue(queue).schedules().list()).isEmpty();
    });
  }

  @Test
  void aZoneOnAnIntervalIsRefusedOrHasNoEffect() {
    String queue = queue("zone-every");
    runner.withBean("attack", Attack.class)
        .withPropertyValues("test.queue=" + queue, "a.every=1h", "a.zone=Asia/Tokyo")
        .run(context -> {
          if (context.getStartupFailure() != null) {
            assertThat(messages(context.getStartupFailure())).contains("zone");
          } else {
            assertThat(delayq.queue(queue).schedules().get("attack")).isPresent();
          }
        });
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
    "delayq.schedules.tick.every=abc | delayq.schedules.tick.every",
    "delayq.schedules.tick.every=0s | delayq.schedules.tick.every",
    "delayq.schedules.tick.every=-1s | delayq.schedules.tick.every",
    "delayq.schedules.tick.misfire=run-up-to:0 | delayq.schedules.tick.misfire",
    "delayq.schedules.tick.misfire=run-up-to:1001 | delayq.schedules.tick.misfire",
    "delayq.schedules.tick.grace=0s | delayq.schedules.tick.grace",
    "delayq.schedules.tick.grace=abc | delayq.schedules.tick.grace",
    "delayq.schedules.tick.max-attempts=abc | delayq.schedules.tick.max-attempts",
    "delayq.schedules.tick.max-attempts=-3 | delayq.schedules.tick.max-attempts",
    "delayq.schedules.tick.paused=maybe | delayq.schedules.tick.paused",
    "delayq.schedules.tick.end=2001-01-01T00:00:00Z | delayq.schedules.tick.end",
  })
  void aBadPropertyFailsTheStartNamingIt(String property, String named) {
    String queue = queue("bad-property");
    runner.withBean(Listener.class)
        .withPropertyValues("test.queue=" + queue, "delayq.schedules.tick.queue=" + queue,
            "delayq.schedules.tick.every=1m", property)
        .run(context -> {
          assertThat(context).as(property).hasFailed();
          assertThat(messages(context.getStartupFailure())).contains(named);
          assertThat(delayq.queue(queue).schedules().list()).isEmpty();
        });
  }

  // --- property names ---

  /** {@code Nightly} in a properties file: stored (under some spelling), or a clear refusal. */
  @Test
  void aPropertyNameWithCapitalsIsStoredOrRefusedClearly() {
    String queue = queue("capitals");
    runner.withBean(Listener.class)
        .withPropertyValues("test.queue=" + queue, "delayq.schedules.Nightly.queue=" + queue,
            "delayq.schedules.Nightly.every=1h")
        .run(context -> {
          if (context.getStartupFailure() != null) {
            assertThat(messages(context.getStartupFailure())).contains("Nightly").doesNotContain("neither is set");
          } else {
            assertThat(names(queue)).hasSize(1).allMatch(n -> n.equalsIgnoreCase("nightly"));
            assertThat(delayq.queue(queue).schedules().list().get(0).schedule().every())
                .isEqualTo(Duration.ofHours(1));
          }
        });
  }

  @Test
  void aPropertyNameWithAnUnderscoreIsStoredOrRefusedClearly() {
    String queue = queue("underscore");
    runner.withBean(Listener.class)
        .withPropertyValues("test.queue=" + queue, "delayq.schedules.nightly_report.queue=" + queue,
            "delayq.schedules.nightly_report.every=1h")
        .run(context -> {
          if (context.getStartupFailure() != null) {
            assertThat(messages(context.getStartupFailure())).contains("nightly_report")
                .doesNotContain("neither is set");
          } else {
            assertThat(names(queue)).containsExactly("nightly_report");
          }
        });
  }

  @Test
  void aBracketedNameWithDotsIsStoredUnderThatName() {
    String queue = queue("bracketed");
    runner.withBean(Listener.class)
        .withPropertyValues("test.queue=" + queue, "delayq.schedules[billing.monthly].queue=" + queue,
            "delayq.schedules[billing.monthly].every=1h")
        .run(context -> {
          assertThat(context).hasNotFailed();
          assertThat(names(queue)).containsExactly("billing.monthly");
        });
  }

  // --- environment variables (relaxed binding) ---

  private ApplicationContextRunner withEnvironment(ApplicationContextRunner base, Map<String, Object> variables) {
    return base.withInitializer(context -> {
      MutablePropertySources sources = context.getEnvironment().getPropertySources();
      // why: Boot maps a source as environment variables only under this name
      SystemEnvironmentPropertySource env = new SystemEnvironmentPropertySource(
          StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, variables);
      if (sources.contains(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME)) {
        sources.replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, env);
      } else {
        sources.addLast(env);
      }
    });
  }

  private List<String> names(String queue) {
    return delayq.existingQueue(queue).map(q -> q.schedules().list().stream().map(ScheduleInfo::name)
        .collect(Collectors.toList())).orElse(List.of());
  }

  @Test
  void aScheduleDeclaredOnlyByEnvironmentVariablesIsStored() {
    String queue = queue("env-only");
    Map<String, Object> env = new HashMap<>();
    env.put("DELAYQ_SCHEDULES_NIGHTLYREPORT_QUEUE", queue);
    env.put("DELAYQ_SCHEDULES_NIGHTLYREPORT_EVERY", "1h");
    withEnvironment(runner.withBean(Listener.class).withPropertyValues("test.queue=" + queue), env)
        .run(context -> {
          assertThat(context).hasNotFailed();
          assertThat(names(queue)).containsExactly("nightlyreport");
        });
  }

  /**
   * The ordinary Spring Boot way to override {@code delayq.schedules.nightly-report.every} from
   * the environment is {@code DELAYQ_SCHEDULES_NIGHTLYREPORT_EVERY}: it must change that
   * schedule, not declare a second one named {@code nightlyreport}.
   */
  @Test
  void anEnvironmentVariableOverridesAPropertyScheduleRatherThanAddingOne() {
    String queue = queue("env-override");
    Map<String, Object> env = new HashMap<>();
    env.put("DELAYQ_SCHEDULES_NIGHTLYREPORT_EVERY", "2h");
    // why: withPropertyValues outranks the environment; application.properties ranks below it, as here
    Map<String, Object> applicationProperties = Map.of("delayq.schedules.nightly-report.queue", queue,
        "delayq.schedules.nightly-report.every", "1h");
    withEnvironment(runner.withBean(Listener.class).withPropertyValues("test.queue=" + queue), env)
        .withInitializer(context -> context.getEnvironment().getPropertySources().addLast(
            new MapPropertySource("Config resource 'class path resource [application.properties]'",
                applicationProperties)))
        .run(context -> {
          assertThat(context).hasNotFailed();
          assertThat(names(queue)).containsExactly("nightly-report");
          assertThat(delayq.queue(queue).schedules().get("nightly-report").orElseThrow().schedule().every())
              .isEqualTo(Duration.ofHours(2));
        });
  }

  /**
   * {@code DELAYQ_SCHEDULES_DEFAULT_QUEUE} is how most people spell {@code
   * delayq.schedules.default-queue} as a variable (Boot binds it); it must set the default queue,
   * not declare a schedule named {@code default}.
   */
  static class OnTheDefaultQueue {
    @DelayqScheduled(name = "report", every = "1m")
    void run() {}
  }

  @Test
  void theDefaultQueueSetByAnUnderscoredVariableIsNotAScheduleNamedDefault() {
    String queue = queue("env-default-queue");
    Map<String, Object> env = new HashMap<>();
    env.put("DELAYQ_SCHEDULES_DEFAULT_QUEUE", queue);
    withEnvironment(runner.withBean("onDefault", OnTheDefaultQueue.class), env)
        .run(context -> {
          assertThat(context.getStartupFailure()).as("startup failure").isNull();
          assertThat(names(queue)).containsExactly("report");
        });
  }

  @Test
  void anUnderscoredVariableForADashedNameFailsTheStartNamingTheVariableOrTheName() {
    String queue = queue("env-dashed");
    Map<String, Object> env = new HashMap<>();
    env.put("DELAYQ_SCHEDULES_NIGHTLY_REPORT_EVERY", "1h");
    env.put("DELAYQ_SCHEDULES_NIGHTLY_REPORT_QUEUE", queue);
    withEnvironment(runner.withBean(Listener.class).withPropertyValues("test.queue=" + queue), env)
        .run(context -> {
          if (context.getStartupFailure() == null) {
            // bound as the user meant: one schedule
            assertThat(names(queue)).hasSize(1);
          } else {
            assertThat(messages(context.getStartupFailure())).containsAnyOf("NIGHTLY_REPORT", "nightly-report",
                "nightly.report");
          }
        });
  }
}
