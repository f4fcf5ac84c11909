package io.delayq.internal.observation;

import io.delayq.LeasedJob;
import io.delayq.internal.Observations;
import io.delayq.observation.ProcessObservationContext;
import io.delayq.observation.ScheduleObservationContext;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Observations on a Micrometer registry: {@code delayq.schedule} and {@code delayq.process}, named
 * and keyed by {@link DelayqConventions} unless the registry's global conventions say otherwise.
 */
public final class MicrometerObservations implements Observations {
  private static final Logger log = LoggerFactory.getLogger(MicrometerObservations.class);
  private static final AtomicBoolean warned = new AtomicBoolean();

  private final ObservationRegistry registry;

  public MicrometerObservations(ObservationRegistry registry) {
    this.registry = registry;
  }

  @Override
  public Observed schedule(String queue, int jobs) {
    ScheduleObservationContext context = new ScheduleObservationContext(queue, jobs);
    try {
      Observation observation =
          Observation.createNotStarted(null, DelayqConventions.SCHEDULE, () -> context, registry).start();
      if (observation.isNoop()) {
        return Observed.NONE;
      }
      return new Started(observation, context.getCarrier(), context::setJobId, context::setOutcome);
    } catch (RuntimeException e) {
      failed("start", e);
      return Observed.NONE;
    }
  }

  @Override
  public Observed process(LeasedJob job) {
    ProcessObservationContext context = new ProcessObservationContext(job);
    try {
      Observation observation =
          Observation.createNotStarted(null, DelayqConventions.PROCESS, () -> context, registry).start();
      if (observation.isNoop()) {
        return Observed.NONE;
      }
      return new Started(observation, Map.of(), id -> {}, context::setOutcome);
    } catch (RuntimeException e) {
      failed("start", e);
      return Observed.NONE;
    }
  }

  /**
   * An observation handler of the application's that throws must not fail a schedule or lose a
   * job: the call goes on unobserved, and the first such failure is logged.
   */
  private static void failed(String step, RuntimeException e) {
    if (warned.compareAndSet(false, true)) {
      log.warn("an observation handler failed to {} a delayq observation; delayq goes on (said once)", step, e);
    } else {
      log.debug("an observation handler failed to {} a delayq observation: {}", step, e.toString());
    }
  }

  private static final class Started implements Observed {
    private final Observation observation;
    private final Map<String, String> headers;
    private final Consumer<String> jobId;
    private final Consumer<String> outcome;

    Started(Observation observation, Map<String, String> headers, Consumer<String> jobId, Consumer<String> outcome) {
      this.observation = observation;
      this.headers = headers;
      this.jobId = jobId;
      this.outcome = outcome;
    }

    @Override
    public Map<String, String> headers() {
      return headers == null ? Map.of() : headers;
    }

    @Override
    public void jobId(String id) {
      jobId.accept(id);
    }

    @Override
    public Scope openScope() {
      Observation.Scope scope;
      try {
        scope = observation.openScope();
      } catch (RuntimeException e) {
        failed("open the scope of", e);
        return Scope.NONE;
      }
      return () -> {
        try {
          scope.close();
        } catch (RuntimeException e) {
          failed("close the scope of", e);
        }
      };
    }

    @Override
    public void stop(Throwable error) {
      outcome.accept(error == null ? DelayqConventions.SUCCESS : DelayqConventions.FAILURE);
      try {
        if (error != null) {
          observation.error(error);
        }
        observation.stop();
      } catch (RuntimeException e) {
        failed("stop", e);
      }
    }
  }
}
