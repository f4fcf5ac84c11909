package io.delayq.spring.autoconfigure;

import io.delayq.WorkerOptions;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Defaults of {@code @DelayqListener} methods, under {@code delayq.listener.*}; an attribute set on
 * the annotation wins over its property here.
 *
 * @since 0.3.0
 */
@ConfigurationProperties("delayq.listener")
public class DelayqListenerProperties {
  /** Jobs each listener runs at once. */
  private int concurrency = WorkerOptions.DEFAULT_CONCURRENCY;

  /** How long a delivered job belongs to its listener before it is delivered again. */
  private Duration lease = WorkerOptions.DEFAULT_LEASE;

  /**
   * Whether the workers extend a job's lease while its listener method runs, so that a method
   * that outlives the lease is not delivered again while it still runs. Always on for a queue
   * that carries @DelayqScheduled methods.
   */
  private boolean keepLeaseWhileRunning;

  /**
   * How long stopping a listener, or closing the application, waits for its running handlers.
   * Keep it below spring.lifecycle.timeout-per-shutdown-phase.
   */
  private Duration shutdownTimeout = WorkerOptions.DEFAULT_SHUTDOWN_TIMEOUT;

  /** Whether listeners start with the application. */
  private boolean autoStartup = true;

  private final Backoff backoff = new Backoff();

  public int getConcurrency() {
    return concurrency;
  }

  public void setConcurrency(int concurrency) {
    this.concurrency = concurrency;
  }

  public Duration getLease() {
    return lease;
  }

  public void setLease(Duration lease) {
    this.lease = lease;
  }

  public boolean isKeepLeaseWhileRunning() {
    return keepLeaseWhileRunning;
  }

  public void setKeepLeaseWhileRunning(boolean keepLeaseWhileRunning) {
    this.keepLeaseWhileRunning = keepLeaseWhileRunning;
  }

  public Duration getShutdownTimeout() {
    return shutdownTimeout;
  }

  public void setShutdownTimeout(Duration shutdownTimeout) {
    this.shutdownTimeout = shutdownTimeout;
  }

  public boolean isAutoStartup() {
    return autoStartup;
  }

  public void setAutoStartup(boolean autoStartup) {
    this.autoStartup = autoStartup;
  }

  public Backoff getBackoff() {
    return backoff;
  }

  /** The wait before a failed job's next attempt. */
  public static class Backoff {
    /** Wait after the first failure. */
    private Duration initial = io.delayq.Backoff.DEFAULT.initial();

    /** Longest wait. */
    private Duration max = io.delayq.Backoff.DEFAULT.max();

    /** Growth of the wait per failed attempt, at least 1. */
    private double multiplier = io.delayq.Backoff.DEFAULT.multiplier();

    /** Random spread of each wait, as a fraction from 0 to 1. */
    private double jitter = io.delayq.Backoff.DEFAULT.jitter();

    public Duration getInitial() {
      return initial;
    }

    public void setInitial(Duration initial) {
      this.initial = initial;
    }

    public Duration getMax() {
      return max;
    }

    public void setMax(Duration max) {
      this.max = max;
    }

    public double getMultiplier() {
      return multiplier;
    }

    public void setMultiplier(double multiplier) {
      this.multiplier = multiplier;
    }

    public double getJitter() {
      return jitter;
    }

    public void setJitter(double jitter) {
      this.jitter = jitter;
    }
  }
}
