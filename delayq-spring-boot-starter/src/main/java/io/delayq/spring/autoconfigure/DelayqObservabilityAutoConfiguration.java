package io.delayq.spring.autoconfigure;

import io.delayq.InvalidRequestException;
import io.delayq.observation.ProcessTracingObservationHandler;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.annotation.Order;

/**
 * Hands the application's Micrometer registries to the delayq client: its meters go to the
 * application's {@code MeterRegistry}, its observations (one per schedule call, one per handled job)
 * to the {@code ObservationRegistry}, and with Micrometer Tracing each handled job's span links to
 * the span that scheduled it. Each part needs only its own library; without Micrometer this does
 * nothing.
 */
@AutoConfiguration(
    afterName = {
      "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
      "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration",
      "org.springframework.boot.micrometer.tracing.autoconfigure.MicrometerTracingAutoConfiguration"
    })
@Import({
  DelayqObservabilityAutoConfiguration.Meters.class,
  DelayqObservabilityAutoConfiguration.Observations.class,
  DelayqObservabilityAutoConfiguration.Tracing.class
})
public class DelayqObservabilityAutoConfiguration {

  /**
   * Ahead of Spring Boot's receiver (1000) and sender (2000) handlers, so that a handled job gets
   * delayq's linked span, not a child of the producer's.
   */
  static final int PROCESS_TRACING_HANDLER_ORDER = 500;

  // why: every signature naming a Micrometer type lives in these nested classes, which are only
  // looked at when that type is on the class path; the outer class must load without Micrometer
  @ConditionalOnClass(name = "io.micrometer.core.instrument.MeterRegistry")
  static class Meters {
    @Bean
    DelayqBuilderCustomizer delayqMeterRegistryCustomizer(ObjectProvider<MeterRegistry> registries, DelayqProperties properties) {
      DelayqProperties.Metrics metrics = properties.getMetrics();
      return builder -> {
        MeterRegistry registry = metrics.isEnabled() ? registries.getIfUnique() : null;
        if (registry == null) {
          return;
        }
        apply("delayq.metrics.lateness-slos", () -> builder.latenessSlos(metrics.getLatenessSlos()));
        apply("delayq.metrics.queue-depth-interval", () -> builder.queueDepthInterval(metrics.getQueueDepthInterval()));
        builder.latenessPercentileHistogram(metrics.isLatenessPercentileHistogram()).meterRegistry(registry);
        boundObservationTimers(registry);
      };
    }

    /**
     * delayq's own meters keep the {@link #MAX_QUEUES_TAGGED} most recently used queues; the timers
     * that Spring Boot's observation handler makes of {@code delayq.schedule} and {@code
     * delayq.process} would otherwise grow a series for every queue name ever used. These keep the
     * first ones and drop the rest: a filter cannot forget a queue the way delayq's own meters do.
     */
    static void boundObservationTimers(MeterRegistry registry) {
      for (String name : new String[] {"delayq.schedule", "delayq.process"}) {
        registry.config().meterFilter(MeterFilter.maximumAllowableTags(name, "queue", MAX_QUEUES_TAGGED, MeterFilter.deny()));
      }
    }

    /** The same bound as delayq-core's meters. */
    static final int MAX_QUEUES_TAGGED = 200;
  }

  @ConditionalOnClass(name = "io.micrometer.observation.ObservationRegistry")
  static class Observations {
    @Bean
    DelayqBuilderCustomizer delayqObservationRegistryCustomizer(
        ObjectProvider<ObservationRegistry> registries, DelayqProperties properties) {
      return builder -> {
        ObservationRegistry registry =
            properties.getMetrics().isObservationsEnabled() ? registries.getIfUnique() : null;
        if (registry != null) {
          builder.observationRegistry(registry);
        }
      };
    }
  }

  @ConditionalOnClass(name = {"io.micrometer.tracing.Tracer", "io.micrometer.tracing.propagation.Propagator"})
  @ConditionalOnBean(type = {"io.micrometer.tracing.Tracer", "io.micrometer.tracing.propagation.Propagator"})
  static class Tracing {
    @Bean
    @Order(PROCESS_TRACING_HANDLER_ORDER)
    @ConditionalOnMissingBean
    ProcessTracingObservationHandler delayqProcessTracingObservationHandler(Tracer tracer, Propagator propagator) {
      return new ProcessTracingObservationHandler(tracer, propagator);
    }
  }

  /** A value the builder refuses fails startup naming the property. */
  private static void apply(String property, Runnable setter) {
    try {
      setter.run();
    } catch (InvalidRequestException | NullPointerException e) {
      throw new DelayqStartupException(
          "The value of " + property + " is not valid: " + e.getMessage() + ".",
          "Change " + property + " (see docs/METRICS.md).",
          e);
    }
  }
}
