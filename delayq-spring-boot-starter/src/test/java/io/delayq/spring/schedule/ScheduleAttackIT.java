package io.delayq.spring.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.Delayq;
import io.delayq.JobInfo;
import io.delayq.LeasedJob;
import io.delayq.ScheduledJob;
import io.delayq.embedded.RedisServerProcess;
import io.delayq.spring.TestRedisUrl;
import io.delayq.spring.health.DelayqHealthIndicator;
import io.delayq.spring.listener.DelayqListener;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.aopalliance.intercept.MethodInterceptor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.aop.framework.autoproxy.BeanNameAutoProxyCreator;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Hostile runtime attacks on {@code @DelayqScheduled} on a real Redis: odd methods and beans
 * (private, static, bridge, generic, proxied, lazy), failing and slow methods, a listener with
 * other settings on the same queue, closing and failing contexts, many schedules started by two
 * contexts at once, health with Redis gone. Tests that fail here are findings (see the report of
 * branch wt-sched-spring-attack).
 */
class ScheduleAttackIT {
  record Digest(String kind) {}

  /** Every run, by job id; shared by the beans of one test. */
  static final class Runs {
    final Map<String, AtomicInteger> byId = new ConcurrentHashMap<>();
    final List<String> order = new CopyOnWriteArrayList<>();
    final List<Object> payloads = new CopyOnWriteArrayList<>();

    void ran(String id) {
      byId.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
      order.add(id);
    }

    int total() {
      return order.size();
    }
  }

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

  private ApplicationContextRunner app(String queue, Runs runs) {
    return ScheduleTesting.runner()
        .withBean(Runs.class, () -> runs)
        .withPropertyValues("test.queue=" + queue, "delayq.listener.backoff.initial=100ms",
            "delayq.listener.backoff.max=200ms", "delayq.listener.backoff.jitter=0");
  }

  // --- odd methods ---

  static class PrivateAndStatic {
    static final AtomicInteger staticRuns = new AtomicInteger();
    private final Runs runs;

    PrivateAndStatic(Runs runs) {
      this.runs = runs;
    }

    @DelayqScheduled(queue = "${test.queue}", name = "private", every = "1s")
    private void hidden(LeasedJob job) {
      runs.ran(job.id());
    }

    @DelayqScheduled(queue = "${test.queue}", name = "static", every = "1s")
    static void shared() {
      staticRuns.incrementAndGet();
    }
  }

  @Test
  void privateAndStaticMethodsOfAPlainBeanRun() {
    String queue = queue("private-static");
    Runs runs = new Runs();
    PrivateAndStatic.staticRuns.set(0);
    app(queue, runs).withBean(PrivateAndStatic.class, runs).run(context -> {
      assertThat(context).hasNotFailed();
      await().atMost(Duration.ofSeconds(5)).until(() -> runs.total() >= 1 && PrivateAndStatic.staticRuns.get() >= 1);
    });
  }

  interface Task<T> {
    void run(T payload);
  }

  /** The compiler adds a bridge {@code run(Object)} beside {@code run(Digest)}. */
  static class DigestTask implements Task<Digest> {
    private final Runs runs;

    DigestTask(Runs runs) {
      this.runs = runs;
    }

    @Override
    @DelayqScheduled(queue = "${test.queue}", every = "1s", jsonPayload = "{\"kind\":\"bridged\"}")
    public void run(Digest payload) {
      runs.payloads.add(payload);
      runs.ran("run");
    }
  }

  @Test
  void aMethodWithABridgeIsOneScheduleAndGetsItsPayload() {
    String queue = queue("bridge");
    Runs runs = new Runs();
    app(queue, runs).withBean("task", DigestTask.class, runs).run(context -> {
      assertThat(context).hasNotFailed();
      assertThat(delayq.queue(queue).schedules().list()).extracting(i -> i.name()).containsExactly("task.run");
      await().atMost(Duration.ofSeconds(5)).until(() -> runs.total() >= 1);
      assertThat(runs.payloads).contains(new Digest("bridged"));
    });
  }

  static class GenericJob<T> {
    final List<Object> seen = new CopyOnWriteArrayList<>();

    @DelayqScheduled(queue = "${test.queue}", name = "generic", every = "1s", jsonPayload = "{\"kind\":\"generic\"}")
    void run(T payload) {
      seen.add(payload);
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class GenericConfig {
    @Bean
    GenericJob<Digest> genericJob() {
      return new GenericJob<>();
    }
  }

  /**
   * The refusal of an unresolved type variable tells the user to declare "a @Bean method
   * returning Listener<Order>"; so such a bean must work (as it does for @DelayqListener).
   */
  @Test
  void aGenericBeanDeclaredWithItsTypeArgumentRuns() {
    String queue = queue("generic");
    app(queue, new Runs()).withUserConfiguration(GenericConfig.class).run(context -> {
      assertThat(context).hasNotFailed();
      @SuppressWarnings("unchecked")
      GenericJob<Digest> job = context.getBean(GenericJob.class);
      await().atMost(Duration.ofSeconds(5)).until(() -> !job.seen.isEmpty());
      assertThat(job.seen).contains(new Digest("generic"));
    });
  }

  // --- proxies ---

  /** Stands for @Transactional: what the interceptor wraps. */
  @Retention(RetentionPolicy.RUNTIME)
  @Target(ElementType.METHOD)
  @interface Audited {}

  static class Audit {
    final AtomicInteger around = new AtomicInteger();
  }

  static class ProxiedJob {
    private final Runs runs;

    ProxiedJob(Runs runs) {
      this.runs = runs;
    }

    @DelayqScheduled(queue = "${test.queue}", name = "proxied", every = "1s")
    void run(LeasedJob job) {
      runs.ran(job.id());
    }

    /** A final method: CGLIB cannot override it, so a call on the proxy runs on the proxy's own (empty) fields. */
    @DelayqScheduled(queue = "${test.queue}", name = "final", every = "1s")
    public final void sealed(LeasedJob job) {
      runs.ran(job.id());
    }
  }

  private static ApplicationContextRunner proxied(ApplicationContextRunner runner, String bean, boolean cglib,
      Audit audit) {
    return runner
        .withBean("auditInterceptorBean", MethodInterceptor.class, () -> invocation -> {
          audit.around.incrementAndGet();
          return invocation.proceed();
        })
        .withBean("proxies", BeanNameAutoProxyCreator.class, () -> {
          BeanNameAutoProxyCreator creator = new BeanNameAutoProxyCreator();
          creator.setBeanNames(bean);
          creator.setInterceptorNames("auditInterceptorBean");
          creator.setProxyTargetClass(cglib);
          return creator;
        });
  }

  /** {@link ProxiedJob} without its final method, which a CGLIB proxy cannot run (see the test below). */
  static class CglibJob {
    private final Runs runs;

    CglibJob(Runs runs) {
      this.runs = runs;
    }

    @DelayqScheduled(queue = "${test.queue}", name = "proxied", every = "1s")
    void run(LeasedJob job) {
      runs.ran(job.id());
    }
  }

  @Test
  void aMethodOfACglibProxiedBeanRunsThroughTheProxy() {
    String queue = queue("cglib");
    Runs runs = new Runs();
    Audit audit = new Audit();
    proxied(app(queue, runs), "job", true, audit).withBean("job", CglibJob.class, runs).run(context -> {
      assertThat(context).hasNotFailed();
      assertThat(org.springframework.aop.support.AopUtils.isCglibProxy(context.getBean("job"))).isTrue();
      await().atMost(Duration.ofSeconds(5)).until(() -> runs.byId.keySet().stream().anyMatch(id -> id.startsWith(
          "proxied@")));
      assertThat(audit.around.get()).as("calls through the interceptor").isPositive();
    });
  }

  /**
   * A final @DelayqScheduled method on a CGLIB-proxied bean (a @Transactional class, say) is
   * called on the proxy, where it sees the proxy's own uninitialised fields and fails every
   * attempt. It must fail the start, or be called on the target.
   */
  @Test
  void aFinalMethodOfACglibProxiedBeanRunsOrFailsTheStart() {
    String queue = queue("cglib-final");
    Runs runs = new Runs();
    proxied(app(queue, runs), "job", true, new Audit()).withBean("job", ProxiedJob.class, runs).run(context -> {
      if (context.getStartupFailure() != null) {
        assertThat(context.getStartupFailure()).hasStackTraceContaining("sealed");
        return;
      }
      await().atMost(Duration.ofSeconds(6)).until(() -> runs.byId.keySet().stream().anyMatch(id -> id.startsWith(
          "final@")) || delayq.queue(queue).admin().deadJobs(10).stream().anyMatch(j -> j.id().startsWith("final@")));
      assertThat(delayq.queue(queue).admin().deadJobs(10)).as("occurrences of the final method that failed")
          .noneMatch(j -> j.id().startsWith("final@"));
      assertThat(runs.byId.keySet()).anyMatch(id -> id.startsWith("final@"));
    });
  }

  interface Reporting {
    @DelayqScheduled(queue = "${test.queue}", name = "on-interface", every = "1s")
    void report(LeasedJob job);
  }

  static class ReportingImpl implements Reporting {
    private final Runs runs;

    ReportingImpl(Runs runs) {
      this.runs = runs;
    }

    @Override
    public void report(LeasedJob job) {
      runs.ran(job.id());
    }
  }

  @Test
  void aMethodOfAnInterfaceRunsThroughAJdkProxy() {
    String queue = queue("jdk");
    Runs runs = new Runs();
    Audit audit = new Audit();
    proxied(app(queue, runs), "reporting", false, audit).withBean("reporting", ReportingImpl.class, runs)
        .run(context -> {
          assertThat(context).hasNotFailed();
          assertThat(org.springframework.aop.support.AopUtils.isJdkDynamicProxy(context.getBean("reporting")))
              .isTrue();
          await().atMost(Duration.ofSeconds(5)).until(() -> runs.total() >= 1);
          assertThat(audit.around.get()).isPositive();
        });
  }

  static class ReportingOnImpl implements Runnable {
    private final Runs runs;

    ReportingOnImpl(Runs runs) {
      this.runs = runs;
    }

    @Override
    @DelayqScheduled(queue = "${test.queue}", name = "wrapped", every = "1s")
    public void run() {
      runs.ran("wrapped");
    }
  }

  /** A BeanPostProcessor of the application's own (or a library's) that wraps a bean in a JDK proxy. */
  static BeanPostProcessor wrapping(String name) {
    return new BeanPostProcessor() {
      @Override
      public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (!beanName.equals(name)) {
          return bean;
        }
        ProxyFactory factory = new ProxyFactory(bean);
        factory.setInterfaces(Runnable.class);
        return factory.getProxy();
      }
    };
  }

  /**
   * A bean wrapped in a JDK proxy by a plain BeanPostProcessor (not an auto-proxy creator, so no
   * "original target class" on its definition): its @DelayqScheduled method must run, as Spring's
   * own @Scheduled does through the proxy's target class, or fail the start; never be ignored.
   */
  @Test
  void aMethodOfABeanWrappedByAPlainPostProcessorIsNotIgnored() {
    String queue = queue("wrapped");
    Runs runs = new Runs();
    app(queue, runs).withBean("wrapper", BeanPostProcessor.class, () -> wrapping("reporting"))
        .withBean("reporting", ReportingOnImpl.class, runs)
        .run(context -> {
          if (context.getStartupFailure() != null) {
            return;
          }
          assertThat(delayq.existingQueue(queue).flatMap(q -> q.schedules().get("wrapped")))
              .as("schedule of the wrapped bean's method").isPresent();
          await().atMost(Duration.ofSeconds(5)).until(() -> runs.total() >= 1);
        });
  }

  @Test
  void aMethodOfALazyBeanRuns() {
    String queue = queue("lazy");
    Runs runs = new Runs();
    app(queue, runs).withBean("lazyJob", ProxiedJob.class, () -> new ProxiedJob(runs), bd -> bd.setLazyInit(true))
        .run(context -> {
          assertThat(context).hasNotFailed();
          await().atMost(Duration.ofSeconds(5)).until(() -> runs.byId.keySet().stream()
              .anyMatch(id -> id.startsWith("proxied@")));
        });
  }

  // --- failing and slow methods ---

  static class Failing {
    final Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();

    @DelayqScheduled(queue = "${test.queue}", name = "failing", every = "1s", maxAttempts = "2")
    void run(LeasedJob job) {
      attempts.computeIfAbsent(job.id(), k -> new AtomicInteger()).incrementAndGet();
      throw new IllegalStateException("boom at attempt " + job.attempt());
    }
  }

  @Test
  void aThrowingMethodIsRetriedThenDeadLetteredAndTheScheduleGoesOn() {
    String queue = queue("failing");
    app(queue, new Runs()).withBean(Failing.class).run(context -> {
      assertThat(context).hasNotFailed();
      Failing failing = context.getBean(Failing.class);
      await().atMost(Duration.ofSeconds(8)).until(() -> delayq.queue(queue).admin().deadJobs(10).size() >= 2);
      await().atMost(Duration.ofSeconds(5)).until(() -> failing.attempts.size() >= 3);
      JobInfo dead = delayq.queue(queue).admin().deadJobs(10).get(0);
      assertThat(dead.attempts()).isEqualTo(2);
      assertThat(dead.lastError()).contains("boom at attempt 2");
      assertThat(failing.attempts.get(dead.id())).hasValue(2);
    });
  }

  static class Slow {
    final Map<String, AtomicInteger> entered = new ConcurrentHashMap<>();
    final Set<String> finished = ConcurrentHashMap.newKeySet();

    @DelayqScheduled(queue = "${test.queue}", name = "slow", every = "1h")
    void run(LeasedJob job) throws InterruptedException {
      entered.computeIfAbsent(job.id(), k -> new AtomicInteger()).incrementAndGet();
      // why: the attack is a method that blocks well past its lease (500 ms)
      Thread.sleep(2_500);
      finished.add(job.id());
    }
  }

  @Test
  void aMethodBlockingPastItsLeaseRunsOnceAndIsAcked() {
    String queue = queue("slow");
    app(queue, new Runs()).withBean(Slow.class).withPropertyValues("delayq.listener.lease=500ms").run(context -> {
      assertThat(context).hasNotFailed();
      Slow slow = context.getBean(Slow.class);
      ScheduledJob extra = delayq.queue(queue).schedules().runNow("slow");
      await().atMost(Duration.ofSeconds(8)).until(() -> slow.finished.contains(extra.id()));
      assertThat(slow.entered.get(extra.id())).as("runs of %s", extra.id()).hasValue(1);
      await().atMost(Duration.ofSeconds(3)).untilAsserted(() -> assertThat(delayq.queue(queue).get(extra.id()))
          .as("the occurrence, once its method returned").isEmpty());
    });
  }

  // --- a listener on the same queue ---

  static class StoppedListener {
    @DelayqListener(queue = "${test.queue}", autoStartup = "false", concurrency = "1")
    void on(String text) {}
  }

  /**
   * A @DelayqListener with autoStartup=false on the queue of a @DelayqScheduled method: the
   * schedule is stored and its method must still run (or the start must say it will not).
   */
  @Test
  void aListenerNotStartedOnTheQueueDoesNotSilentlyStopTheScheduledMethod() {
    String queue = queue("listener-stopped");
    Runs runs = new Runs();
    app(queue, runs).withBean(StoppedListener.class).withBean("job", ProxiedJob.class, runs).run(context -> {
      if (context.getStartupFailure() != null) {
        return;
      }
      await().atMost(Duration.ofSeconds(5)).until(() -> runs.byId.keySet().stream()
          .anyMatch(id -> id.startsWith("proxied@")));
    });
  }

  static class NonRetryingListener {
    @DelayqListener(queue = "${test.queue}", nonRetryable = IllegalStateException.class, maxAttempts = "1")
    void on(String text) {}
  }

  /**
   * The docs: a scheduled method that throws is retried "until maxAttempts attempts are spent";
   * the queue's listener lends its backoff. Its nonRetryable list (meant for its own jobs) must not
   * bury the scheduled method's occurrences at their first failure.
   */
  @Test
  void theListenersNonRetryableTypesDoNotCutTheScheduledMethodsAttempts() {
    String queue = queue("listener-nonretryable");
    app(queue, new Runs()).withBean(NonRetryingListener.class).withBean(Failing.class).run(context -> {
      assertThat(context).hasNotFailed();
      await().atMost(Duration.ofSeconds(6)).until(() -> !delayq.queue(queue).admin().deadJobs(10).isEmpty());
      assertThat(delayq.queue(queue).admin().deadJobs(10).get(0).attempts()).as("attempts before the dead letter")
          .isEqualTo(2);
    });
  }

  // --- closing, failing contexts ---

  static class Gate {
    final CountDownLatch entered = new CountDownLatch(1);
    final AtomicReference<String> firstId = new AtomicReference<>();
    final AtomicBoolean finished = new AtomicBoolean();
    final AtomicBoolean interrupted = new AtomicBoolean();
    volatile long workMillis = 1_500;
  }

  static class Gated {
    private final Gate gate;
    private final Runs runs;

    Gated(Gate gate, Runs runs) {
      this.gate = gate;
      this.runs = runs;
    }

    @DelayqScheduled(queue = "${test.queue}", name = "gated", every = "1s")
    void run(LeasedJob job) {
      runs.ran(job.id());
      if (gate.firstId.compareAndSet(null, job.id())) {
        gate.entered.countDown();
        try {
          // why: the attack is a context closed while this occurrence is at work
          Thread.sleep(gate.workMillis);
          gate.finished.set(true);
        } catch (InterruptedException e) {
          gate.interrupted.set(true);
          Thread.currentThread().interrupt();
        }
      }
    }
  }

  @Test
  void closingTheContextLetsTheRunningOccurrenceFinishAndAnotherContextKeepsTheScheduleGoing() throws Exception {
    String queue = queue("close-finish");
    Runs runs = new Runs();
    Gate gate = new Gate();
    ApplicationContextRunner instance = app(queue, runs).withBean(Gate.class, () -> gate)
        .withBean(Gated.class, gate, runs);
    instance.run(context -> {
      assertThat(context).hasNotFailed();
      assertThat(gate.entered.await(5, TimeUnit.SECONDS)).isTrue();
    }); // closes while the first occurrence sleeps
    assertThat(gate.finished).as("the occurrence ran to its end before the context closed").isTrue();
    assertThat(delayq.queue(queue).get(gate.firstId.get())).as("acked").isEmpty();
    int before = runs.total();
    instance.run(context -> await().atMost(Duration.ofSeconds(5)).until(() -> runs.total() >= before + 2));
    assertThat(runs.byId).allSatisfy((id, n) -> assertThat(n.get()).as("runs of %s", id).isEqualTo(1));
  }

  /** Ignores interrupts, as a method blocked in I/O that no interrupt reaches does; tracks runs of one id at once. */
  static class Stubborn {
    final CountDownLatch entered = new CountDownLatch(1);
    final AtomicReference<String> firstId = new AtomicReference<>();
    final Set<String> active = ConcurrentHashMap.newKeySet();
    final List<String> overlaps = new CopyOnWriteArrayList<>();
    final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    final AtomicBoolean firstFinished = new AtomicBoolean();

    @DelayqScheduled(queue = "${test.queue}", name = "stubborn", every = "1h")
    void run(LeasedJob job) {
      runs.computeIfAbsent(job.id(), k -> new AtomicInteger()).incrementAndGet();
      if (!active.add(job.id())) {
        overlaps.add(job.id());
      }
      try {
        if (firstId.compareAndSet(null, job.id())) {
          entered.countDown();
          long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
          while (System.nanoTime() < until) {
            try {
              // why: the attack is a method that outlives the shutdown timeout and ignores interrupts
              Thread.sleep(50);
            } catch (InterruptedException ignored) {
              // keeps going
            }
          }
          firstFinished.set(true);
        }
      } finally {
        active.remove(job.id());
      }
    }
  }

  /**
   * A method still at work when the shutdown timeout ends, that ignores the interrupt: while it
   * runs, no other instance may start the same occurrence (the design's "exactly one owner per
   * lease, even past the shutdown timeout"), and the occurrence is not lost.
   */
  @Test
  void anOccurrenceOutlivingTheShutdownTimeoutIsNeverRunTwiceAtOnce() throws Exception {
    String queue = queue("close-cut");
    Stubborn stubborn = new Stubborn();
    ApplicationContextRunner instance = app(queue, new Runs()).withBean(Stubborn.class, () -> stubborn)
        .withPropertyValues("delayq.listener.shutdown-timeout=200ms", "delayq.listener.lease=500ms");
    instance.run(context -> {
      assertThat(context).hasNotFailed();
      delayq.queue(queue).schedules().runNow("stubborn");
      assertThat(stubborn.entered.await(5, TimeUnit.SECONDS)).isTrue();
    });
    String cut = stubborn.firstId.get();
    assertThat(stubborn.firstFinished).as("still at work after the close").isFalse();
    instance.run(context -> {
      await().atMost(Duration.ofSeconds(6)).until(stubborn.firstFinished::get);
      // why: give the second instance time to take the occurrence if its lease was let go
      await().atMost(Duration.ofSeconds(3)).until(() -> delayq.queue(queue).get(cut).isEmpty()
          || stubborn.runs.get(cut).get() >= 2);
    });
    assertThat(stubborn.overlaps).as("occurrences run twice at once").isEmpty();
  }

  static class FailsToStart implements SmartLifecycle {
    private final int phase;

    FailsToStart(int phase) {
      this.phase = phase;
    }

    @Override
    public void start() {
      throw new IllegalStateException("this bean refuses to start");
    }

    @Override
    public void stop() {}

    @Override
    public boolean isRunning() {
      return false;
    }

    @Override
    public int getPhase() {
      return phase;
    }
  }

  private static long workerThreads(String queue) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && t.getName().contains(queue)).count();
  }

  @Test
  void aContextFailingAfterTheListenersStartedLeavesNoWorkersRunning() {
    String queue = queue("fail-late");
    Runs runs = new Runs();
    app(queue, runs).withBean("job", ProxiedJob.class, runs)
        .withBean("late", FailsToStart.class, () -> new FailsToStart(Integer.MAX_VALUE))
        .run(context -> assertThat(context).hasFailed());
    await().atMost(Duration.ofSeconds(5)).until(() -> workerThreads(queue) == 0);
    int after = runs.total();
    await().during(Duration.ofMillis(2_500)).atMost(Duration.ofSeconds(3)).until(() -> runs.total() == after);
    // stored before the failure (the registry starts first): it stays, and fires for any other instance
    assertThat(delayq.queue(queue).schedules().get("proxied")).isPresent();
  }

  @Test
  void aContextFailingBeforeTheSchedulesStartStoresNothing() {
    String queue = queue("fail-early");
    Runs runs = new Runs();
    app(queue, runs).withBean("job", ProxiedJob.class, runs)
        .withBean("early", FailsToStart.class, () -> new FailsToStart(Integer.MIN_VALUE))
        .run(context -> assertThat(context).hasFailed());
    assertThat(delayq.existingQueue(queue).map(q -> q.schedules().list()).orElse(List.of())).isEmpty();
    assertThat(workerThreads(queue)).isZero();
  }

  // --- many schedules, two contexts at once ---

  static class CountingListener {
    private final Runs runs;

    CountingListener(Runs runs) {
      this.runs = runs;
    }

    @DelayqListener(queue = "${test.queue}", concurrency = "16")
    void on(LeasedJob job) {
      runs.ran(job.id());
    }
  }

  @Test
  void aHundredSchedulesStartedByTwoContextsAtOnceRunEachOccurrenceOnce() throws Exception {
    String queue = queue("hundred");
    Runs runs = new Runs();
    List<String> properties = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      String name = String.format("s%03d", i);
      properties.add("delayq.schedules." + name + ".queue=" + queue);
      properties.add("delayq.schedules." + name + ".every=1s");
    }
    CyclicBarrier together = new CyclicBarrier(2);
    CountDownLatch bothUp = new CountDownLatch(2);
    CountDownLatch done = new CountDownLatch(1);
    ApplicationContextRunner instance = app(queue, runs).withBean(CountingListener.class, runs)
        .withPropertyValues(properties.toArray(String[]::new))
        .withInitializer(context -> {
          try {
            together.await(10, TimeUnit.SECONDS);
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
    List<Throwable> failures = new CopyOnWriteArrayList<>();
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      Thread thread = new Thread(() -> {
        try {
          instance.run(context -> {
            assertThat(context).hasNotFailed();
            bothUp.countDown();
            done.await(20, TimeUnit.SECONDS);
          });
        } catch (Throwable t) {
          failures.add(t);
          bothUp.countDown();
        }
      });
      thread.start();
      threads.add(thread);
    }
    try {
      assertThat(bothUp.await(20, TimeUnit.SECONDS)).isTrue();
      assertThat(failures).isEmpty();
      await().atMost(Duration.ofSeconds(10)).until(() -> {
        Map<String, Long> bySchedule = new java.util.HashMap<>();
        runs.byId.keySet().forEach(id -> bySchedule.merge(id.substring(0, id.indexOf('@')), 1L, Long::sum));
        return bySchedule.size() == 100 && bySchedule.values().stream().allMatch(n -> n >= 3);
      });
    } finally {
      done.countDown();
      for (Thread thread : threads) {
        thread.join(20_000);
      }
    }
    assertThat(failures).isEmpty();
    assertThat(runs.byId).allSatisfy((id, n) -> assertThat(n.get()).as("runs of %s", id).isEqualTo(1));
  }

  // --- health ---

  @Test
  void healthIsDownWithSchedulesWhileRedisIsAwayAndListsThemAgainWhenItReturns() {
    String queueName = ScheduleTesting.uniqueQueue("health-down");
    try (RedisServerProcess redis = RedisServerProcess.builder().start()) {
      Runs runs = new Runs();
      ScheduleTesting.runner()
          .withPropertyValues("delayq.redis.url=" + redis.uri(), "delayq.command-timeout=1s", "test.queue=" + queueName)
          .withBean(Runs.class, () -> runs)
          .withBean("job", ProxiedJob.class, runs)
          .run(context -> {
            assertThat(context).hasNotFailed();
            DelayqHealthIndicator indicator = context.getBean(DelayqHealthIndicator.class);
            assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
            redis.stop();
            await().atMost(Duration.ofSeconds(10)).until(() -> indicator.health().getStatus().equals(Status.DOWN));
            Health down = indicator.health();
            assertThat((String) down.getDetails().get("error")).contains("Redis");
            redis.restart();
            await().atMost(Duration.ofSeconds(20)).until(() -> indicator.health().getStatus().equals(Status.UP));
            @SuppressWarnings("unchecked")
            Map<String, Map<String, Map<String, Object>>> schedules =
                (Map<String, Map<String, Map<String, Object>>>) indicator.health().getDetails().get("schedules");
            assertThat(schedules.get(queueName)).containsKeys("proxied", "final");
          });
    }
  }
}
