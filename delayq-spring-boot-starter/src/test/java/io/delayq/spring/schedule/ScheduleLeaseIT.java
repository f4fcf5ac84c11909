package io.delayq.spring.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.Delayq;
import io.delayq.JobRequest;
import io.delayq.LeasedJob;
import io.delayq.ScheduledJob;
import io.delayq.spring.TestRedisUrl;
import io.delayq.spring.listener.DelayqListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Leases kept while methods run (a queue that carries scheduled methods always keeps them; a
 * listener when asked), and scheduled methods of beans that a plain post-processor wrapped.
 */
class ScheduleLeaseIT {
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

  /** Runs of each job id; every run blocks for three leases of 300 ms. */
  static final class Slow {
    final Map<String, AtomicInteger> entered = new ConcurrentHashMap<>();
    final Set<String> finished = ConcurrentHashMap.newKeySet();

    void run(String id) throws InterruptedException {
      entered.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
      // why: what is tested is a method that blocks past its lease
      Thread.sleep(900);
      finished.add(id);
    }
  }

  static class SlowListener {
    private final Slow slow;

    SlowListener(Slow slow) {
      this.slow = slow;
    }

    @DelayqListener(queue = "${test.queue}", keepLeaseWhileRunning = "${test.keep:}")
    void on(String text, LeasedJob job) throws InterruptedException {
      slow.run(job.id());
    }
  }

  static class SlowScheduled {
    private final Slow slow;

    SlowScheduled(Slow slow) {
      this.slow = slow;
    }

    @DelayqScheduled(queue = "${test.queue}", name = "slow", every = "1h")
    void run(LeasedJob job) throws InterruptedException {
      slow.run(job.id());
    }
  }

  private ApplicationContextRunner app(String queue, Slow slow) {
    return ScheduleTesting.runner().withBean(Slow.class, () -> slow)
        .withPropertyValues("test.queue=" + queue, "delayq.listener.lease=300ms");
  }

  /** The job ran to its end once, and was acked. */
  private void awaitOneRun(Slow slow, String queue, String id) {
    await().atMost(Duration.ofSeconds(5)).until(() -> slow.finished.contains(id));
    // why: a lease let go would have been redelivered within the method's 900 ms
    assertThat(slow.entered.get(id)).as("runs of %s", id).hasValue(1);
    await().atMost(Duration.ofSeconds(3)).until(() -> delayq.queue(queue).get(id).isEmpty());
  }

  @Test
  void aListenerAskedToKeepLeasesRunsASlowJobOnce() {
    String queue = queue("listener-keeps");
    Slow slow = new Slow();
    app(queue, slow).withBean(SlowListener.class, slow).withPropertyValues("test.keep=true").run(context -> {
      assertThat(context).hasNotFailed();
      String id = delayq.queue(queue).schedule(JobRequest.of("slow")).id();
      awaitOneRun(slow, queue, id);
    });
  }

  @Test
  void aQueueSharedByAListenerAndAScheduledMethodKeepsLeasesForBoth() {
    String queue = queue("shared-keeps");
    Slow slow = new Slow();
    app(queue, slow).withBean(SlowListener.class, slow).withBean(SlowScheduled.class, slow).run(context -> {
      assertThat(context).hasNotFailed();
      ScheduledJob occurrence = delayq.queue(queue).schedules().runNow("slow");
      String job = delayq.queue(queue).schedule(JobRequest.of("slow")).id();
      awaitOneRun(slow, queue, occurrence.id());
      awaitOneRun(slow, queue, job);
    });
  }

  @Test
  void withoutKeepingALeaseAListenersSlowJobRunsAgain() {
    String queue = queue("listener-lets-go");
    Slow slow = new Slow();
    app(queue, slow).withBean(SlowListener.class, slow).run(context -> {
      assertThat(context).hasNotFailed();
      String id = delayq.queue(queue).schedule(JobRequest.of("slow")).id();
      // why: the check that the tests above can fail: the default lets a lease run out
      await().atMost(Duration.ofSeconds(5)).until(() -> slow.entered.getOrDefault(id, new AtomicInteger()).get() >= 2);
    });
  }

  static class Wrapped implements Runnable {
    final AtomicInteger runs = new AtomicInteger();

    @Override
    @DelayqScheduled(queue = "${test.queue}", name = "wrapped", every = "1s")
    public void run() {
      runs.incrementAndGet();
    }
  }

  @Test
  void aBeanWrappedByAPlainPostProcessorRunsThroughItsProxy() {
    String queue = queue("wrapped");
    AtomicInteger throughProxy = new AtomicInteger();
    ScheduleTesting.runner().withPropertyValues("test.queue=" + queue)
        .withBean("wrapper", BeanPostProcessor.class, () -> new BeanPostProcessor() {
          @Override
          public Object postProcessAfterInitialization(Object bean, String beanName) {
            if (!beanName.equals("wrapped")) {
              return bean;
            }
            ProxyFactory factory = new ProxyFactory(bean);
            factory.setInterfaces(Runnable.class);
            factory.addAdvice((org.aopalliance.intercept.MethodInterceptor) invocation -> {
              throughProxy.incrementAndGet();
              return invocation.proceed();
            });
            return factory.getProxy();
          }
        })
        .withBean("wrapped", Wrapped.class)
        .run(context -> {
          assertThat(context).hasNotFailed();
          assertThat(delayq.queue(queue).schedules().get("wrapped")).isPresent();
          await().atMost(Duration.ofSeconds(5)).until(() -> throughProxy.get() >= 1);
        });
  }
}
