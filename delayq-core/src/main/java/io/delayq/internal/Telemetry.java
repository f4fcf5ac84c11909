package io.delayq.internal;

import io.delayq.internal.metrics.MicrometerMeters;
import io.delayq.internal.observation.MicrometerObservations;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.List;

/**
 * A client's meters and observations, built by {@code Delayq.Builder}. Micrometer types appear only
 * in {@link #create}'s signature and in the classes it makes when a registry is given; with neither
 * registry, no Micrometer class is ever loaded (WithoutMicrometerIT runs the client so).
 */
public final class Telemetry implements AutoCloseable {
  public static final Telemetry NONE = new Telemetry(Meters.NONE, Observations.NONE);

  private final Meters meters;
  private final Observations observations;

  private Telemetry(Meters meters, Observations observations) {
    this.meters = meters;
    this.observations = observations;
  }

  /**
   * @param meterRegistry null for no meters
   * @param observationRegistry null for no observations
   */
  public static Telemetry create(
      MeterRegistry meterRegistry,
      List<Duration> latenessSlos,
      boolean latenessPercentileHistogram,
      Duration depthInterval,
      Duration commandTimeout,
      ObservationRegistry observationRegistry) {
    if (meterRegistry == null && observationRegistry == null) {
      return NONE;
    }
    Meters meters = Meters.NONE;
    if (meterRegistry != null) {
      meters = new MicrometerMeters(meterRegistry, latenessSlos, latenessPercentileHistogram, depthInterval, commandTimeout);
    }
    Observations observations = Observations.NONE;
    if (observationRegistry != null) {
      observations = new MicrometerObservations(observationRegistry);
    }
    return new Telemetry(meters, observations);
  }

  Meters meters() {
    return meters;
  }

  Observations observations() {
    return observations;
  }

  @Override
  public void close() {
    meters.close();
  }
}
