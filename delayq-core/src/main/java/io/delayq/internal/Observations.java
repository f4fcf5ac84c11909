package io.delayq.internal;

import io.delayq.LeasedJob;
import java.util.Map;

/**
 * A client's observations, made in {@code io.delayq.internal.observation} over Micrometer's
 * Observation API when a registry is given, or {@link #NONE}. Only the calls of users are observed,
 * each schedule call and each handler run; claims, sweeps, acks and lease keeping never are.
 */
public interface Observations {
  Observations NONE = new Observations() {
    @Override
    public Observed schedule(String queue, int jobs) {
      return Observed.NONE;
    }

    @Override
    public Observed process(LeasedJob job) {
      return Observed.NONE;
    }
  };

  /** Starts the observation of one schedule call of {@code jobs} jobs. */
  Observed schedule(String queue, int jobs);

  /** Starts the observation of one handler run of {@code job}. */
  Observed process(LeasedJob job);

  /** One started observation. */
  interface Observed {
    Observed NONE = new Observed() {};

    /** The propagation headers a tracer wrote into a schedule's carrier; empty when none. */
    default Map<String, String> headers() {
      return Map.of();
    }

    /** The id of the only job of a schedule call, once known. */
    default void jobId(String id) {}

    /** Makes the observation current on this thread until the scope is closed. */
    default Scope openScope() {
      return Scope.NONE;
    }

    /** Stops it, failed with {@code error}, or succeeded when that is null. */
    default void stop(Throwable error) {}
  }

  /** A scope opened by {@link Observed#openScope()}. */
  interface Scope extends AutoCloseable {
    Scope NONE = () -> {};

    @Override
    void close();
  }
}
