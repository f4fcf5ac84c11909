package io.delayq.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.Delayq;
import io.delayq.JobInfo;
import io.delayq.JobQueue;
import io.delayq.JobRequest;
import io.delayq.JobState;
import io.delayq.LeasedJob;
import io.delayq.NonRetryableJobException;
import io.delayq.WorkerOptions;
import io.delayq.Workers;
import io.delayq.spring.TestRedisUrl;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.aopalliance.intercept.MethodInterceptor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** {@code @DelayqListener} methods on a real Redis: every parameter kind, failures, leases, lifecycle. */
class DelayqListenerIT {
  record Order(String id, long cents) {}

  /** What the listeners saw, by listener. */
  static final class Recorder {
    final Map<String, List<Object>> received = new ConcurrentHashMap<>();
    final Map<String, List<Thread>> threads = new ConcurrentHashMap<>();

    void record(String listener, Object value) {
      received.computeIfAbsent(listener, k -> new CopyOnWriteArrayList<>()).add(value);
      threads.computeIfAbsent(listener, k -> new CopyOnWriteArrayList<>()).add(Thread.currentThread());
    }

    List<Object> of(String listener) {
      return received.getOrDefault(listener, List.of());
    }
  }

  private final ApplicationContextRunner runner = ListenerTesting.runner().withBean(Recorder.class);
  private Delayq delayq;

  @BeforeEach
  void connect() {
    delayq = Delayq.connect(TestRedisUrl.get());
  }

  @AfterEach
  void close() {
    delayq.close();
  }

  private static JobRequest json(String id, String json) {
    return JobRequest.ofJson(json).withId(id);
  }

  // ---- every parameter kind ----

  static class TextListener {
    private final Recorder recorder;

    TextListener(Recorder recorder) {
      this.recorder = recorder;
    }

    @DelayqListener(queue = "${q.text}")
    void on(String text) {
      recorder.record("text", text);
    }

    @DelayqListener(queue = "${q.bytes}")
    void on(byte[] bytes) {
      recorder.record("bytes", bytes);
    }
  }

  static class OrderListener {
    private final Recorder recorder;

    OrderListener(Recorder recorder) {
      this.recorder = recorder;
    }

    @DelayqListener(queue = "${q.pojo}")
    void one(Order order) {
      recorder.record("pojo", order);
    }

    @DelayqListener(queue = "${q.list}")
    void many(List<Order> orders) {
      recorder.record("list", orders);
    }

    @DelayqListener(queue = "${q.job}")
    void withJob(LeasedJob job, Order order) {
      recorder.record("job", job);
      recorder.record("job-order", order);
    }

    @DelayqListener(queue = "${q.job-only}")
    void jobOnly(LeasedJob job) {
      recorder.record("job-only", job.payloadAsString());
    }
  }

  /** A generic listener; its type variable is resolved by each bean's declared type. */
  static class GenericListener<T> {
    private final Recorder recorder;
    private final String name;

    GenericListener(Recorder recorder, String name) {
      this.recorder = recorder;
      this.name = name;
    }

    @DelayqListener(queue = "${q.generic}-#{'${q.suffix:x}'}")
    void on(T payload, LeasedJob job) {
      recorder.record(name, payload);
    }
  }

  static class OrderGenericListener extends GenericListener<Order> {
    OrderGenericListener(Recorder recorder) {
      super(recorder, "generic-subclass");
    }
  }

  static class BatchListener<T> {
    private final Recorder recorder;

    BatchListener(Recorder recorder) {
      this.recorder = recorder;
    }

    @DelayqListener(queue = "${q.batch}")
    void on(List<T> items) {
      recorder.record("generic-bean", items);
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class GenericBeans {
    @Bean
    BatchListener<Order> orderBatches(Recorder recorder) {
      return new BatchListener<>(recorder);
    }
  }

  @Test
  void everyParameterKindIsBoundByTypeAndGenericTypesAreReadAsDeclared() {
    String prefix = ListenerTesting.uniqueQueue("kinds");
    runner
        .withBean(TextListener.class)
        .withBean(OrderListener.class)
        .withBean(OrderGenericListener.class)
        .withUserConfiguration(GenericBeans.class)
        .withPropertyValues("q.text=" + prefix + "-text", "q.bytes=" + prefix + "-bytes", "q.pojo=" + prefix + "-pojo",
            "q.list=" + prefix + "-list", "q.job=" + prefix + "-job", "q.job-only=" + prefix + "-job-only",
            "q.generic=" + prefix + "-generic", "q.suffix=sub", "q.batch=" + prefix + "-batch")
        .run(context -> {
          assertThat(context).hasNotFailed();
          Recorder recorder = context.getBean(Recorder.class);
          byte[] notText = {(byte) 0xC3, (byte) 0x28, 0, 7};
          delayq.queue(prefix + "-text").schedule(JobRequest.of("héllo"));
          delayq.queue(prefix + "-bytes").schedule(JobRequest.of(notText));
          delayq.queue(prefix + "-pojo").schedule(json("p", "{\"id\":\"o-1\",\"cents\":250}"));
          delayq.queue(prefix + "-list").schedule(json("l", "[{\"id\":\"a\",\"cents\":1},{\"id\":\"b\",\"cents\":2}]"));
          ScheduledAt job = new ScheduledAt(delayq.queue(prefix + "-job")
              .schedule(json("with-job", "{\"id\":\"o-2\",\"cents\":5}").withMaxAttempts(7)).runAt());
          delayq.queue(prefix + "-job-only").schedule(JobRequest.of("just the job"));
          delayq.queue(prefix + "-generic-sub").schedule(json("g", "{\"id\":\"o-3\",\"cents\":3}"));
          delayq.queue(prefix + "-batch").schedule(json("b", "[{\"id\":\"o-4\",\"cents\":4}]"));

          await().atMost(Duration.ofSeconds(10)).until(() -> recorder.received.size() == 9);
          assertThat(recorder.of("text")).containsExactly("héllo");
          assertThat(recorder.of("bytes")).singleElement().isEqualTo(notText);
          assertThat(recorder.of("pojo")).containsExactly(new Order("o-1", 250));
          assertThat(recorder.of("list")).containsExactly(List.of(new Order("a", 1), new Order("b", 2)));
          assertThat((List<?>) recorder.of("list").get(0)).allSatisfy(o -> assertThat(o).isInstanceOf(Order.class));
          assertThat(recorder.of("job-order")).containsExactly(new Order("o-2", 5));
          LeasedJob leased = (LeasedJob) recorder.of("job").get(0);
          assertThat(leased.id()).isEqualTo("with-job");
          assertThat(leased.attempt()).isEqualTo(1);
          assertThat(leased.maxAttempts()).isEqualTo(7);
          assertThat(leased.runAt()).isEqualTo(job.runAt());
          assertThat(leased.token()).isPositive();
          assertThat(leased.payloadIsJson()).isTrue();
          assertThat(recorder.of("job-only")).containsExactly("just the job");
          assertThat(recorder.of("generic-subclass")).containsExactly(new Order("o-3", 3));
          assertThat(recorder.of("generic-bean")).containsExactly(List.of(new Order("o-4", 4)));
          assertThat((List<?>) recorder.of("generic-bean").get(0)).singleElement().isInstanceOf(Order.class);

          DelayqListenerRegistry registry = context.getBean(DelayqListenerRegistry.class);
          assertThat(registry.containers()).extracting(DelayqListenerContainer::id).containsExactly(
              prefix + "-batch", prefix + "-bytes", prefix + "-generic-sub", prefix + "-job", prefix + "-job-only",
              prefix + "-list", prefix + "-pojo", prefix + "-text");
          assertThat(registry.containers()).allSatisfy(c -> assertThat(c.isRunning()).isTrue());
        });
  }

  private record ScheduledAt(Instant runAt) {}

  /** Wraps the text listener in a class-based proxy, as @Transactional or @Timed would. */
  @Configuration(proxyBeanMethods = false)
  static class Proxying {
    static final AtomicInteger intercepted = new AtomicInteger();

    @Bean
    static BeanPostProcessor countingProxies() {
      return new BeanPostProcessor() {
        @Override
        public Object postProcessAfterInitialization(Object bean, String beanName) {
          if (!(bean instanceof TextListener)) {
            return bean;
          }
          ProxyFactory factory = new ProxyFactory(bean);
          factory.setProxyTargetClass(true);
          factory.addAdvice((MethodInterceptor) invocation -> {
            intercepted.incrementAndGet();
            return invocation.proceed();
          });
          return factory.getProxy();
        }
      };
    }
  }

  @Test
  void aProxiedListenerBeanIsCalledThroughItsProxy() {
    String prefix = ListenerTesting.uniqueQueue("proxied");
    Proxying.intercepted.set(0);
    runner.withBean(TextListener.class).withUserConfiguration(Proxying.class)
        .withPropertyValues("q.text=" + prefix + "-text", "q.bytes=" + prefix + "-bytes")
        .run(context -> {
          assertThat(AopUtils.isAopProxy(context.getBean(TextListener.class))).isTrue();
          delayq.queue(prefix + "-text").schedule(JobRequest.of("through the proxy"));
          Recorder recorder = context.getBean(Recorder.class);
          await().atMost(Duration.ofSeconds(10)).until(() -> !recorder.of("text").isEmpty());
          assertThat(recorder.of("text")).containsExactly("through the proxy");
          assertThat(Proxying.intercepted).hasValue(1);
        });
  }

  // ---- concurrency ----

  static class SlowListener {
    final AtomicInteger running = new AtomicInteger();
    final AtomicInteger most = new AtomicInteger();
    final AtomicInteger done = new AtomicInteger();
    final CountDownLatch release = new CountDownLatch(1);

    @DelayqListener(queue = "${q.slow}", concurrency = "${orders.concurrency:5}")
    void on(String payload) throws InterruptedException {
      most.accumulateAndGet(running.incrementAndGet(), Math::max);
      try {
        release.await(20, TimeUnit.SECONDS);
      } finally {
        running.decrementAndGet();
        done.incrementAndGet();
      }
    }
  }

  @Test
  void concurrencyFromAPlaceholderDefaultRunsThatManyHandlersAtOnceAndNoMore() {
    String queue = ListenerTesting.uniqueQueue("parallel");
    runner.withBean(SlowListener.class).withPropertyValues("q.slow=" + queue).run(context -> {
      SlowListener listener = context.getBean(SlowListener.class);
      for (int i = 0; i < 8; i++) {
        delayq.queue(queue).schedule(JobRequest.of("x").withId("job-" + i));
      }
      // untilAsserted: a timeout then says how many handlers did run
      await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(listener.running).hasValue(5));
      await().during(Duration.ofMillis(700)).atMost(Duration.ofSeconds(2)).until(() -> listener.running.get() == 5);
      assertThat(context.getBean(DelayqListenerRegistry.class).container(queue).orElseThrow().inFlight()).isEqualTo(5);
      listener.release.countDown();
      await().atMost(Duration.ofSeconds(10)).until(() -> listener.done.get() == 8);
      assertThat(listener.most).hasValue(5);
    });
  }

  // ---- failures ----

  static class FailingListeners {
    final Map<String, List<Integer>> attempts = new ConcurrentHashMap<>();
    final Map<String, List<Instant>> times = new ConcurrentHashMap<>();

    private void seen(LeasedJob job) {
      attempts.computeIfAbsent(job.id(), k -> new CopyOnWriteArrayList<>()).add(job.attempt());
      times.computeIfAbsent(job.id(), k -> new CopyOnWriteArrayList<>()).add(Instant.now());
    }

    @DelayqListener(queue = "${q.retry}",
        backoff = @DelayqListener.Backoff(initial = "200ms", multiplier = "2", max = "5s", jitter = "0"))
    void retried(LeasedJob job) {
      seen(job);
      throw new IllegalStateException("payment service down (attempt " + job.attempt() + ")");
    }

    @DelayqListener(queue = "${q.capped}", maxAttempts = "${q.cap}", backoff = @DelayqListener.Backoff(initial = "50ms", jitter = "0"))
    void capped(LeasedJob job) {
      seen(job);
      throw new IllegalStateException("still down");
    }

    @DelayqListener(queue = "${q.fatal}", nonRetryable = IllegalArgumentException.class,
        backoff = @DelayqListener.Backoff(initial = "50ms"))
    void fatal(LeasedJob job, String payload) {
      seen(job);
      if (payload.equals("bad-id")) {
        throw new NumberFormatException("order id 'bad-id' is not a number");
      }
      if (payload.equals("gone")) {
        throw new NonRetryableJobException("order no longer exists");
      }
      if (job.attempt() == 1) {
        throw new IllegalStateException("flaky");
      }
    }

    @DelayqListener(queue = "${q.unreadable}", backoff = @DelayqListener.Backoff(initial = "50ms"))
    void unreadable(Order order, LeasedJob job) {
      seen(job);
    }
  }

  @Test
  void aFailingListenerIsRetriedWithItsBackoffUntilTheJobsAttemptsAreSpentThenGoesDead() {
    String queue = ListenerTesting.uniqueQueue("retry");
    runner.withBean(FailingListeners.class)
        .withPropertyValues("q.retry=" + queue, "q.capped=" + queue + "-c", "q.cap=2", "q.fatal=" + queue + "-f",
            "q.unreadable=" + queue + "-u")
        .run(context -> {
          FailingListeners listener = context.getBean(FailingListeners.class);
          JobQueue jobs = delayq.queue(queue);
          jobs.schedule(JobRequest.of("pay").withId("flaky").withMaxAttempts(3));
          await().atMost(Duration.ofSeconds(10)).until(() -> jobs.admin().stats().dead() == 1);

          assertThat(listener.attempts.get("flaky")).containsExactly(1, 2, 3);
          List<Instant> times = listener.times.get("flaky");
          assertThat(Duration.between(times.get(0), times.get(1))).isGreaterThanOrEqualTo(Duration.ofMillis(190));
          assertThat(Duration.between(times.get(1), times.get(2))).isGreaterThanOrEqualTo(Duration.ofMillis(390));
          JobInfo dead = jobs.get("flaky").orElseThrow();
          assertThat(dead.state()).isEqualTo(JobState.DEAD);
          assertThat(dead.attempts()).isEqualTo(3);
          assertThat(dead.lastError()).isEqualTo("java.lang.IllegalStateException: payment service down (attempt 3)");
        });
  }

  @Test
  void theListenersMaxAttemptsCapsTheJobsOwnWhenAnAttemptFails() {
    String queue = ListenerTesting.uniqueQueue("cap");
    runner.withBean(FailingListeners.class)
        .withPropertyValues("q.retry=" + queue + "-r", "q.capped=" + queue, "q.cap=2", "q.fatal=" + queue + "-f",
            "q.unreadable=" + queue + "-u")
        .run(context -> {
          FailingListeners listener = context.getBean(FailingListeners.class);
          JobQueue jobs = delayq.queue(queue);
          jobs.schedule(JobRequest.of("x").withId("capped").withMaxAttempts(5));
          jobs.schedule(JobRequest.of("x").withId("lower").withMaxAttempts(1));
          await().atMost(Duration.ofSeconds(10)).until(() -> jobs.admin().stats().dead() == 2);

          assertThat(listener.attempts.get("capped")).containsExactly(1, 2);
          JobInfo capped = jobs.get("capped").orElseThrow();
          assertThat(capped.state()).isEqualTo(JobState.DEAD);
          assertThat(capped.attempts()).isEqualTo(2);
          assertThat(capped.maxAttempts()).isEqualTo(5);
          assertThat(capped.lastError()).isEqualTo("io.delayq.NonRetryableJobException: attempt 2 failed, and the"
              + " listener allows at most 2 (the job itself allows 5); caused by java.lang.IllegalStateException: still down");
          // The job's own count still applies when it is the lower one.
          assertThat(listener.attempts.get("lower")).containsExactly(1);
          assertThat(jobs.get("lower").orElseThrow().lastError()).isEqualTo("java.lang.IllegalStateException: still down");
        });
  }

  @Test
  void nonRetryableFailuresAndUnreadablePayloadsGoStraightToTheDeadSetWithTheirError() {
    String queue = ListenerTesting.uniqueQueue("fatal");
    runner.withBean(FailingListeners.class)
        .withPropertyValues("q.retry=" + queue + "-r", "q.capped=" + queue + "-c", "q.cap=2", "q.fatal=" + queue,
            "q.unreadable=" + queue + "-u")
        .run(context -> {
          FailingListeners listener = context.getBean(FailingListeners.class);
          JobQueue jobs = delayq.queue(queue);
          JobQueue unreadable = delayq.queue(queue + "-u");
          jobs.schedule(JobRequest.of("bad-id").withId("bad-id"));
          jobs.schedule(JobRequest.of("gone").withId("gone"));
          jobs.schedule(JobRequest.of("fine").withId("flaky"));
          unreadable.schedule(JobRequest.of("not json at all").withId("text"));
          unreadable.schedule(json("wrong-shape", "{\"id\":\"o\",\"cents\":\"a lot\"}"));
          await().atMost(Duration.ofSeconds(10)).until(() -> jobs.admin().stats().dead() == 2
              && unreadable.admin().stats().dead() == 2 && jobs.get("flaky").isEmpty());

          assertThat(listener.attempts.get("bad-id")).containsExactly(1);
          JobInfo badId = jobs.get("bad-id").orElseThrow();
          assertThat(badId.state()).isEqualTo(JobState.DEAD);
          assertThat(badId.attempts()).isEqualTo(1);
          assertThat(badId.lastError()).isEqualTo("java.lang.NumberFormatException: order id 'bad-id' is not a number");
          assertThat(jobs.get("gone").orElseThrow().lastError())
              .isEqualTo("io.delayq.NonRetryableJobException: order no longer exists");
          assertThat(listener.attempts.get("flaky")).containsExactly(1, 2);

          // The method never runs for a payload it cannot be given.
          assertThat(listener.attempts).doesNotContainKeys("text", "wrong-shape");
          for (String id : List.of("text", "wrong-shape")) {
            JobInfo dead = unreadable.get(id).orElseThrow();
            assertThat(dead.state()).isEqualTo(JobState.DEAD);
            assertThat(dead.attempts()).isEqualTo(1);
            assertThat(dead.lastError()).startsWith("io.delayq.spring.PayloadConversionException: the payload is not a"
                + " JSON " + Order.class.getName());
          }
        });
  }

  static class NullPayloadListeners {
    final Map<String, List<Object>> calls = new ConcurrentHashMap<>();

    @DelayqListener(queue = "${q.null-order}", backoff = @DelayqListener.Backoff(initial = "50ms", jitter = "0"))
    void order(Order order, LeasedJob job) {
      calls.computeIfAbsent(job.id(), k -> new CopyOnWriteArrayList<>()).add(String.valueOf(order));
      order.id();
    }

    @DelayqListener(queue = "${q.null-map}", backoff = @DelayqListener.Backoff(initial = "50ms", jitter = "0"))
    void map(Map<String, Object> fields, LeasedJob job) {
      calls.computeIfAbsent(job.id(), k -> new CopyOnWriteArrayList<>()).add(String.valueOf(fields));
      fields.size();
    }
  }

  /**
   * JSON {@code null} (a producer in another language, the HTTP API, or the core API can send it;
   * the starter itself refuses to write a null payload) is no value of the parameter's type: like
   * any payload that cannot be read, it must not reach the method, which would be handed null and
   * fail on every attempt; the job goes to the dead-letter set at once.
   */
  @Test
  void aJsonNullPayloadNeverReachesTheMethodAndGoesStraightToTheDeadSet() {
    String queue = ListenerTesting.uniqueQueue("null");
    runner.withBean(NullPayloadListeners.class)
        .withPropertyValues("q.null-order=" + queue + "-o", "q.null-map=" + queue + "-m")
        .run(context -> {
          NullPayloadListeners listener = context.getBean(NullPayloadListeners.class);
          JobQueue orders = delayq.queue(queue + "-o");
          JobQueue maps = delayq.queue(queue + "-m");
          orders.schedule(json("null-order", "null").withMaxAttempts(3));
          maps.schedule(json("null-map", " null ").withMaxAttempts(3));
          await().atMost(Duration.ofSeconds(10)).until(() -> orders.admin().stats().dead() == 1
              && maps.admin().stats().dead() == 1);

          assertThat(listener.calls).isEmpty();
          for (JobInfo dead : List.of(orders.get("null-order").orElseThrow(), maps.get("null-map").orElseThrow())) {
            assertThat(dead.attempts()).isEqualTo(1);
            assertThat(dead.lastError()).startsWith("io.delayq.spring.PayloadConversionException:").contains("null");
          }
        });
  }

  // ---- leases ----

  static class LongListener {
    final AtomicInteger deliveries = new AtomicInteger();
    final List<Instant> leaseEnds = new CopyOnWriteArrayList<>();
    final CountDownLatch never = new CountDownLatch(1);
    volatile boolean finished;

    @DelayqListener(queue = "${q.long}", lease = "1s", concurrency = "2")
    void on(LeasedJob job) throws InterruptedException {
      deliveries.incrementAndGet();
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
      while (System.nanoTime() < end) {
        leaseEnds.add(job.extendLease(Duration.ofSeconds(1)));
        never.await(300, TimeUnit.MILLISECONDS); // three seconds of work, in steps
      }
      finished = true;
    }
  }

  @Test
  void aListenerExtendingItsOneSecondLeaseWorksThreeSecondsWithoutTheJobBeingDeliveredAgain() {
    String queue = ListenerTesting.uniqueQueue("extend");
    runner.withBean(LongListener.class).withPropertyValues("q.long=" + queue).run(context -> {
      LongListener listener = context.getBean(LongListener.class);
      AtomicInteger elsewhere = new AtomicInteger();
      delayq.queue(queue).schedule(JobRequest.of("x").withId("long"));
      await().atMost(Duration.ofSeconds(10)).until(() -> listener.deliveries.get() == 1);
      // Another worker on the same queue, which would take the job at once if its lease ran out.
      try (Workers other = delayq.queue(queue).startWorkers(job -> elsewhere.incrementAndGet(),
          WorkerOptions.builder().sweepInterval(Duration.ofMillis(50)).build())) {
        await().atMost(Duration.ofSeconds(10)).until(() -> listener.finished);
        await().atMost(Duration.ofSeconds(5)).until(() -> delayq.queue(queue).get("long").isEmpty());
      }
      assertThat(listener.deliveries).hasValue(1);
      assertThat(elsewhere).hasValue(0);
      assertThat(listener.leaseEnds).hasSizeGreaterThanOrEqualTo(9);
      assertThat(listener.leaseEnds.get(listener.leaseEnds.size() - 1))
          .isAfter(listener.leaseEnds.get(0).plusSeconds(2));
    });
  }

  // ---- the registry ----

  static class ControlledListeners {
    final List<String> ran = new CopyOnWriteArrayList<>();

    @DelayqListener(id = "${q.id}", queue = "${q.controlled}")
    void controlled(String payload) {
      ran.add("controlled:" + payload);
    }

    @DelayqListener(id = "manual", queue = "${q.manual}", autoStartup = "${q.manual-startup:false}")
    void manual(String payload) {
      ran.add("manual:" + payload);
    }
  }

  @Test
  void theRegistryListsListenersByIdAndStopsAndStartsThemAtRunTime() {
    String queue = ListenerTesting.uniqueQueue("registry");
    runner.withBean(ControlledListeners.class)
        .withPropertyValues("q.id=cancel-orders", "q.controlled=" + queue, "q.manual=" + queue + "-m")
        .run(context -> {
          ControlledListeners listener = context.getBean(ControlledListeners.class);
          DelayqListenerRegistry registry = context.getBean(DelayqListenerRegistry.class);
          assertThat(registry.containers()).extracting(DelayqListenerContainer::id).containsExactly("cancel-orders", "manual");
          assertThat(registry.container("nope")).isEmpty();
          DelayqListenerContainer controlled = registry.container("cancel-orders").orElseThrow();
          DelayqListenerContainer manual = registry.container("manual").orElseThrow();
          assertThat(controlled.queue()).isEqualTo(queue);
          assertThat(controlled.isRunning()).isTrue();
          assertThat(manual.isRunning()).isFalse();

          delayq.queue(queue).schedule(JobRequest.of("1"));
          await().atMost(Duration.ofSeconds(5)).until(() -> listener.ran.contains("controlled:1"));

          controlled.stop();
          assertThat(controlled.isRunning()).isFalse();
          delayq.queue(queue).schedule(JobRequest.of("2").withId("while-stopped"));
          delayq.queue(queue + "-m").schedule(JobRequest.of("3").withId("not-started"));
          await().during(Duration.ofMillis(1_500)).atMost(Duration.ofSeconds(3)).until(() -> listener.ran.size() == 1);
          assertThat(delayq.queue(queue).get("while-stopped").orElseThrow().state()).isEqualTo(JobState.SCHEDULED);

          controlled.start();
          manual.start();
          assertThat(controlled.isRunning()).isTrue();
          assertThat(manual.isRunning()).isTrue();
          await().atMost(Duration.ofSeconds(5)).until(() -> listener.ran.size() == 3);
          assertThat(listener.ran).containsExactlyInAnyOrder("controlled:1", "controlled:2", "manual:3");
        });
  }

  // ---- shutdown ----

  static class ShutdownListener {
    private final Delayq client;
    final CountDownLatch started = new CountDownLatch(1);
    final CountDownLatch never = new CountDownLatch(1);
    final AtomicInteger runs = new AtomicInteger();
    final Duration work;
    final String followUps;
    volatile Instant finishedAt;

    ShutdownListener(Delayq client, org.springframework.core.env.Environment environment) {
      this.client = client;
      this.work = Duration.parse(environment.getRequiredProperty("q.work"));
      this.followUps = environment.getProperty("q.follow-ups", "");
    }

    @DelayqListener(queue = "${q.shutdown}", concurrency = "1", lease = "1s")
    void on(LeasedJob job) {
      runs.incrementAndGet();
      started.countDown();
      long end = System.nanoTime() + work.toNanos();
      // Work that carries on through interrupts, as blocking library calls often do.
      while (System.nanoTime() < end) {
        try {
          never.await(Math.max(1, end - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException ignored) {
          // carries on regardless
        }
      }
      if (!followUps.isEmpty()) {
        // The client is still open for a handler finishing within the shutdown timeout.
        client.queue(followUps).schedule(JobRequest.of("after " + job.id()).withId("follow-up"));
      }
      finishedAt = Instant.now();
    }
  }

  @Test
  void closingTheContextLetsARunningHandlerFinishAndAckWhileUnstartedJobsStayScheduled() {
    String queue = ListenerTesting.uniqueQueue("shutdown");
    runner.withBean(ShutdownListener.class)
        .withPropertyValues("q.shutdown=" + queue, "q.follow-ups=" + queue + "-next", "q.work=PT2S")
        .run(context -> {
          ShutdownListener listener = context.getBean(ShutdownListener.class);
          JobQueue jobs = delayq.queue(queue);
          jobs.schedule(JobRequest.of("x").withId("long"));
          assertThat(listener.started.await(10, TimeUnit.SECONDS)).isTrue();
          jobs.schedule(JobRequest.of("x").withId("waiting"));

          Delayq client = context.getBean(Delayq.class);
          context.close();
          Instant closed = Instant.now();
          assertThat(listener.finishedAt).isNotNull().isBeforeOrEqualTo(closed);
          assertThat(client.isClosed()).isTrue();
          assertThat(jobs.get("long")).isEmpty();
          assertThat(delayq.queue(queue + "-next").get("follow-up")).isPresent();
          JobInfo waiting = jobs.get("waiting").orElseThrow();
          assertThat(waiting.state()).isEqualTo(JobState.SCHEDULED);
          assertThat(waiting.attempts()).isZero();
          assertThat(listener.runs).hasValue(1);
        });
  }

  @Test
  void aHandlerPastTheShutdownTimeoutKeepsItsJobUntilItReturnsAndIsNotDeliveredAgain() {
    String queue = ListenerTesting.uniqueQueue("straggler");
    runner.withBean(ShutdownListener.class)
        .withPropertyValues("q.shutdown=" + queue, "q.work=PT3S", "delayq.listener.shutdown-timeout=300ms")
        .run(context -> {
          ShutdownListener listener = context.getBean(ShutdownListener.class);
          JobQueue jobs = delayq.queue(queue);
          jobs.schedule(JobRequest.of("x").withId("long"));
          assertThat(listener.started.await(10, TimeUnit.SECONDS)).isTrue();
          long closing = System.nanoTime();
          context.close();
          assertThat(Duration.ofNanos(System.nanoTime() - closing)).isLessThan(Duration.ofMillis(2_000));
          assertThat(listener.finishedAt).isNull();

          AtomicInteger elsewhere = new AtomicInteger();
          try (Workers other = jobs.startWorkers(job -> elsewhere.incrementAndGet(),
              WorkerOptions.builder().sweepInterval(Duration.ofMillis(50)).build())) {
            await().atMost(Duration.ofSeconds(10)).until(() -> listener.finishedAt != null);
            await().atMost(Duration.ofSeconds(5)).until(() -> jobs.get("long").isEmpty());
          }
          assertThat(elsewhere).hasValue(0);
          assertThat(listener.runs).hasValue(1);
        });
  }

  // ---- threads ----

  static class ThreadListener {
    private final Recorder recorder;

    ThreadListener(Recorder recorder) {
      this.recorder = recorder;
    }

    @DelayqListener(queue = "${q.threads}")
    void on(String payload) {
      recorder.record("threads", payload);
    }
  }

  @Test
  void virtualThreadsRunHandlersWhereSpringTurnsThemOnAndJavaHasThem() throws Exception {
    String queue = ListenerTesting.uniqueQueue("virtual");
    runner.withBean(ThreadListener.class)
        .withPropertyValues("q.threads=" + queue, "spring.threads.virtual.enabled=true")
        .run(context -> {
          Recorder recorder = context.getBean(Recorder.class);
          delayq.queue(queue).schedule(JobRequest.of("x"));
          await().atMost(Duration.ofSeconds(10)).until(() -> !recorder.of("threads").isEmpty());
          Thread thread = recorder.threads.get("threads").get(0);
          assertThat(thread.getName()).startsWith("delayq-worker-" + queue + "-");
          boolean javaHasThem = Runtime.version().feature() >= 21;
          assertThat(isVirtual(thread)).isEqualTo(javaHasThem);
        });
  }

  @Test
  void platformThreadsRunHandlersByDefault() throws Exception {
    String queue = ListenerTesting.uniqueQueue("platform");
    runner.withBean(ThreadListener.class).withPropertyValues("q.threads=" + queue).run(context -> {
      Recorder recorder = context.getBean(Recorder.class);
      delayq.queue(queue).schedule(JobRequest.of("x"));
      await().atMost(Duration.ofSeconds(10)).until(() -> !recorder.of("threads").isEmpty());
      Thread thread = recorder.threads.get("threads").get(0);
      assertThat(thread.getName()).startsWith("delayq-worker-" + queue + "-");
      assertThat(isVirtual(thread)).isFalse();
    });
  }

  private static boolean isVirtual(Thread thread) throws ReflectiveOperationException {
    if (Runtime.version().feature() < 21) {
      return false;
    }
    return (boolean) Thread.class.getMethod("isVirtual").invoke(thread);
  }
}
