package io.delayq.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayq.Delayq;
import io.delayq.JobRequest;
import io.delayq.observation.ProcessTracingObservationHandler;
import io.delayq.spring.TestRedisUrl;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import io.micrometer.tracing.propagation.Propagator;
import io.micrometer.tracing.test.simple.SimpleTracer;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The client gets the application's registries, and each property reaches it; without Micrometer nothing changes. */
class DelayqObservabilityAutoConfigurationTest {
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(DelayqAutoConfiguration.class, DelayqObservabilityAutoConfiguration.class))
          .withPropertyValues("delayq.redis.url=" + TestRedisUrl.get());

  private static String queue() {
    return "test-observability-" + UUID.randomUUID().toString().substring(0, 8);
  }

  @Test
  void theApplicationsMeterRegistryGetsDelayqsMetersWithTheConfiguredLatencyBuckets() {
    String queue = queue();
    runner
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .withPropertyValues("delayq.metrics.lateness-slos=10ms,1s")
        .run(context -> {
          context.getBean(Delayq.class).queue(queue).schedule(JobRequest.of("x").withDelay(Duration.ofHours(1)));
          MeterRegistry registry = context.getBean(MeterRegistry.class);
          assertThat(registry.get("delayq.jobs.scheduled").tag("queue", queue).tag("outcome", "created").counter().count())
              .isEqualTo(1.0);
          context.getBean(Delayq.class).queue(queue).schedule(JobRequest.of("due now"));
          assertThat(context.getBean(Delayq.class).queue(queue).pull().claim(1, Duration.ofSeconds(5))).hasSize(1);
          Timer lateness = registry.get("delayq.job.lateness").tag("queue", queue).timer();
          assertThat(lateness.count()).isEqualTo(1);
          assertThat(lateness.takeSnapshot().histogramCounts())
              .extracting(bucket -> (long) bucket.bucket(java.util.concurrent.TimeUnit.MILLISECONDS))
              .containsExactly(10L, 1000L);
        });
  }

  @Test
  void metricsCanBeTurnedOff() {
    String queue = queue();
    runner
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .withPropertyValues("delayq.metrics.enabled=false")
        .run(context -> {
          context.getBean(Delayq.class).queue(queue).schedule(JobRequest.of("x").withDelay(Duration.ofHours(1)));
          assertThat(context.getBean(MeterRegistry.class).find("delayq.jobs.scheduled").meters()).isEmpty();
        });
  }

  @Test
  void aBadBucketListFailsStartupNamingTheProperty() {
    runner
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .withPropertyValues("delayq.metrics.lateness-slos=-1s")
        .run(context -> assertThat(context).hasFailed().getFailure()
            .rootCause().hasMessageContaining("latenessSlos"));
  }

  @Test
  void scheduleCallsAreObservationsOfTheApplicationsRegistry() {
    TestObservationRegistry observations = TestObservationRegistry.create();
    runner
        .withBean(ObservationRegistry.class, () -> observations)
        .run(context -> {
          context.getBean(Delayq.class).queue(queue()).schedule(JobRequest.of("x").withDelay(Duration.ofHours(1)));
          TestObservationRegistryAssert.assertThat(observations).hasObservationWithNameEqualTo("delayq.schedule");
        });
  }

  @Test
  void withATracerTheProcessSpansLinkInsteadOfParentingThroughDelayqsHandler() {
    runner
        .withBean(SimpleTracer.class, SimpleTracer::new)
        .withBean(Propagator.class, () -> Propagator.NOOP)
        .run(context -> assertThat(context).hasSingleBean(ProcessTracingObservationHandler.class));
    runner.run(context -> assertThat(context).doesNotHaveBean(ProcessTracingObservationHandler.class));
  }

  @Test
  void withoutMicrometerTheClientStartsWithoutMetersOrObservations() {
    runner
        .withClassLoader(new FilteredClassLoader("io.micrometer"))
        .run(context -> assertThat(context).hasNotFailed().hasSingleBean(Delayq.class));
  }
  /**
   * delayq keeps meters for the 200 queues used most recently (docs/METRICS.md). With Spring
   * Boot's wiring, the ObservationRegistry's DefaultMeterObservationHandler also turns every
   * {@code delayq.schedule} observation into a timer and a long task timer tagged by queue: those
   * must be bounded the same way, or an application with a queue per tenant (or per anything)
   * grows a pair of series per queue name for ever.
   */
  @Test
  void observationTimersTaggedByQueueAreBoundedLikeDelayqsOwnMeters() {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    ObservationRegistry observations = ObservationRegistry.create();
    observations.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters));
    String prefix = queue() + "-";
    int queues = 260;
    runner
        .withBean(MeterRegistry.class, () -> meters)
        .withBean(ObservationRegistry.class, () -> observations)
        .run(context -> {
          Delayq delayq = context.getBean(Delayq.class);
          try {
            for (int i = 0; i < queues; i++) {
              delayq.queue(prefix + i).schedule(JobRequest.of("x").withDelay(Duration.ofHours(1)));
            }
            assertThat(queuesTagged(meters, "delayq.jobs.scheduled")).as("delayq's own meter").isEqualTo(200);
            assertThat(queuesTagged(meters, "delayq.schedule")).as("the observation's timer").isLessThanOrEqualTo(200);
            assertThat(queuesTagged(meters, "delayq.schedule.active")).as("its long task timer").isLessThanOrEqualTo(200);
          } finally {
            for (int i = 0; i < queues; i++) {
              delayq.existingQueue(prefix + i).ifPresent(q -> q.admin().delete(true));
            }
          }
        });
  }

  private static long queuesTagged(MeterRegistry meters, String name) {
    return meters.find(name).meters().stream().map(m -> m.getId().getTag("queue")).distinct().count();
  }
}
