package io.delayq.spring.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayq.Delayq;
import io.delayq.LeasedJob;
import io.delayq.ScheduleInfo;
import io.delayq.spring.TestRedisUrl;
import io.delayq.spring.listener.DelayqListener;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.aopalliance.intercept.MethodInterceptor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.aop.framework.autoproxy.BeanNameAutoProxyCreator;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.MutablePropertySources;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * How schedule names and settings are read (through Spring Boot's binder: relaxed names,
 * environment variables) and the refusals at startup for what would not run as written.
 */
class ScheduleStartupRulesTest {
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
      messages.add(String.valueOf(t.getMessage()));
    }
    return String.join("\n", messages);
  }

  private List<String> names(String queue) {
    return delayq.existingQueue(queue).map(q -> q.schedules().list().stream().map(ScheduleInfo::name).toList())
        .orElse(List.of());
  }

  private static ApplicationContextRunner withVariables(ApplicationContextRunner base, Map<String, Object> variables) {
    return base.withInitializer(context -> {
      MutablePropertySources sources = context.getEnvironment().getPropertySources();
      SystemEnvironmentPropertySource env = new SystemEnvironmentPropertySource(
          StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, variables);
      if (sources.contains(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME)) {
        sources.replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, env);
      } else {
        sources.addLast(env);
      }
    });
  }

  static class Listener {
    @DelayqListener(queue = "${test.queue}")
    void on(String text) {}
  }

  static class OnTheDefaultQueue {
    @DelayqScheduled(name = "report", every = "1m")
    void run() {}
  }

  @Test
  void aNameWithCapitalsIsStoredAsWritten() {
    String queue = queue("capitals-kept");
    runner.withBean(Listener.class)
        .withPropertyValues("test.queue=" + queue, "delayq.schedules.Nightly.queue=" + queue,
            "delayq.schedules.Nightly.every=1h")
        .run(context -> {
          assertThat(context).hasNotFailed();
          assertThat(names(queue)).containsExactly("Nightly");
        });
  }

  @Test
  void twoSpellingsOfOneNameFailTheStart() {
    String queue = queue("two-spellings");
    runner.withBean(Listener.class)
        .withPropertyValues("test.queue=" + queue, "delayq.schedules.nightly-report.queue=" + queue,
            "delayq.schedules.nightly-report.every=1h", "delayq.schedules.Nightly-Report.every=1h")
        .run(context -> {
          assertThat(context).hasFailed();
          assertThat(messages(context.getStartupFailure())).contains("delayq.schedules.Nightly-Report.*")
              .contains("delayq.schedules.nightly-report.*").contains("ignores case and dashes");
          assertThat(names(queue)).isEmpty();
        });
  }

  @Test
  void aMisspelledSettingFailsTheStartNamingIt() {
    String queue = queue("misspelled");
    runner.withBean(Listener.class)
        .withPropertyValues("test.queue=" + queue, "delayq.schedules.tick.queue=" + queue,
            "delayq.schedules.tick.evry=1m")
        .run(context -> {
          assertThat(context).hasFailed();
          assertThat(messages(context.getStartupFailure())).contains("delayq.schedules.tick.evry")
              .contains("not a setting of any schedule").doesNotContain("neither is set");
        });
  }

  @Test
  void anUnderscoredVariableOfADashedNameIsRefusedWithTheVariableThatWorks() {
    String queue = queue("env-dashed-hint");
    withVariables(runner.withBean(Listener.class).withPropertyValues("test.queue=" + queue),
        Map.of("DELAYQ_SCHEDULES_NIGHTLY_REPORT_EVERY", "1h"))
        .run(context -> {
          assertThat(context).hasFailed();
          assertThat(messages(context.getStartupFailure()))
              .contains("DELAYQ_SCHEDULES_NIGHTLY_REPORT_EVERY")
              .contains("DELAYQ_SCHEDULES_NIGHTLYREPORT_EVERY sets delayq.schedules.nightly-report.every");
        });
  }

  @Test
  void theCanonicalVariableSetsTheDefaultQueue() {
    String queue = queue("env-defaultqueue");
    withVariables(runner.withBean("onDefault", OnTheDefaultQueue.class),
        Map.of("DELAYQ_SCHEDULES_DEFAULTQUEUE", queue))
        .run(context -> {
          assertThat(context).hasNotFailed();
          assertThat(names(queue)).containsExactly("report");
        });
  }

  @Test
  void anEmptyQueuePropertyFailsTheStartSayingSo() {
    runner.withPropertyValues("delayq.schedules.digest.queue=", "delayq.schedules.digest.every=1h")
        .run(context -> {
          assertThat(context).hasFailed();
          assertThat(messages(context.getStartupFailure())).contains("delayq.schedules.digest.queue is set but empty");
        });
  }

  static class QueueFromPlaceholder {
    @DelayqScheduled(queue = "${digest.queue:}", name = "digest", every = "1h")
    void run() {}
  }

  @Test
  void aQueuePlaceholderResolvingToNothingFailsTheStartNamingTheAttribute() {
    runner.withBean("digestJob", QueueFromPlaceholder.class).withPropertyValues("digest.queue=")
        .run(context -> {
          assertThat(context).hasFailed();
          assertThat(messages(context.getStartupFailure())).contains("of bean 'digestJob'")
              .contains("queue = \"${digest.queue:}\": resolves to nothing");
        });
  }

  static class StoppedListener {
    @DelayqListener(queue = "${test.queue}", autoStartup = "false")
    void on(String text) {}
  }

  static class Scheduled {
    @DelayqScheduled(queue = "${test.queue}", name = "tick", every = "1h")
    void run(LeasedJob job) {}
  }

  @Test
  void aListenerThatDoesNotStartOnTheQueueOfAScheduledMethodFailsTheStart() {
    String queue = queue("listener-not-started");
    runner.withBean(StoppedListener.class).withBean("job", Scheduled.class).withPropertyValues("test.queue=" + queue)
        .run(context -> {
          assertThat(context).hasFailed();
          assertThat(messages(context.getStartupFailure())).contains("Scheduled.run(LeasedJob) of bean 'job'")
              .contains("StoppedListener.on(String)").contains("does not start with the application")
              .contains("a queue of their own");
          assertThat(names(queue)).isEmpty();
        });
  }

  static class Sealed {
    @DelayqScheduled(queue = "${test.queue}", name = "sealed", every = "1h")
    public final void run() {}
  }

  @Test
  void aFinalMethodOfACglibProxiedBeanFailsTheStartSayingWhy() {
    String queue = queue("final-cglib");
    runner.withBean("sealed", Sealed.class)
        .withBean("passThrough", MethodInterceptor.class, () -> invocation -> invocation.proceed())
        .withBean("proxies", BeanNameAutoProxyCreator.class, () -> {
          BeanNameAutoProxyCreator creator = new BeanNameAutoProxyCreator();
          creator.setBeanNames("sealed");
          creator.setInterceptorNames("passThrough");
          creator.setProxyTargetClass(true);
          return creator;
        })
        .withPropertyValues("test.queue=" + queue)
        .run(context -> {
          assertThat(context).hasFailed();
          assertThat(messages(context.getStartupFailure())).contains("Sealed.run() of bean 'sealed'")
              .contains("is final, and the bean is a CGLIB proxy").contains("Remove final from run");
          assertThat(names(queue)).isEmpty();
        });
  }
}
