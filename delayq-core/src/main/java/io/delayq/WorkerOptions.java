package io.delayq;

import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutorService;

/**
 * How workers run: how many handlers at once, how long a claimed job is leased, how failures are
 * retried, how long closing waits. Immutable; made by {@link #builder()}.
 *
 * @since 0.1.0
 */
public final class WorkerOptions {
  public static final int DEFAULT_CONCURRENCY = 4;
  public static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);
  public static final int DEFAULT_CLAIM_BATCH = 100;
  public static final Duration DEFAULT_SHUTDOWN_TIMEOUT = Duration.ofSeconds(10);
  public static final Duration DEFAULT_SWEEP_INTERVAL = Duration.ofSeconds(1);

  private final int concurrency;
  private final Duration lease;
  private final int claimBatch;
  private final Duration shutdownTimeout;
  private final Duration sweepInterval;
  private final Backoff backoff;
  private final ExecutorService executor;
  private final Set<Class<? extends Throwable>> nonRetryable;
  private final boolean keepLeaseWhileRunning;

  private WorkerOptions(Builder b) {
    this.concurrency = b.concurrency;
    this.lease = b.lease;
    this.claimBatch = b.claimBatch;
    this.shutdownTimeout = b.shutdownTimeout;
    this.sweepInterval = b.sweepInterval;
    this.backoff = b.backoff;
    this.executor = b.executor;
    this.nonRetryable = b.nonRetryable;
    this.keepLeaseWhileRunning = b.keepLeaseWhileRunning;
  }

  public static Builder builder() {
    return new Builder();
  }

  public static WorkerOptions defaults() {
    return builder().build();
  }

  /** Handlers that may run at once; the workers never lease more jobs than this. */
  public int concurrency() {
    return concurrency;
  }

  /**
   * Whether the workers extend a job's lease while its handler runs, each time half of it is left.
   * Then the lease bounds how long a dead worker holds a job, not how long a handler may take (a
   * nightly report of five minutes under a 30 s lease runs once); a handler that never returns
   * holds its job until its worker stops. Off by default: a handler that outlives its lease is
   * delivered again, as a hung one should be.
   *
   * @since 0.4.0
   */
  public boolean keepLeaseWhileRunning() {
    return keepLeaseWhileRunning;
  }

  /** How long a claimed job belongs to its worker before it is delivered again. */
  public Duration lease() {
    return lease;
  }

  /** Most jobs taken from one partition in one round trip. */
  public int claimBatch() {
    return claimBatch;
  }

  /**
   * How long {@link Workers#close()} waits for running handlers. A handler still running after it is
   * interrupted (on the workers' own threads) and keeps its lease until it returns.
   */
  public Duration shutdownTimeout() {
    return shutdownTimeout;
  }

  /**
   * The longest an idle worker sleeps without looking at Redis: the bound on how late a job can be
   * when a wake-up notification is lost.
   */
  public Duration sweepInterval() {
    return sweepInterval;
  }

  public Backoff backoff() {
    return backoff;
  }

  /** The caller's executor for handlers, or {@code null} for the workers' own named threads. */
  public ExecutorService executor() {
    return executor;
  }

  /**
   * Exception types that fail a job for good: a handler that throws one of them (or a subtype)
   * sends the job straight to the dead-letter set, as {@link NonRetryableJobException} does.
   * Empty unless set.
   *
   * @since 0.3.0
   */
  public Set<Class<? extends Throwable>> nonRetryable() {
    return nonRetryable;
  }

  public Builder toBuilder() {
    Builder b = new Builder();
    b.concurrency = concurrency;
    b.lease = lease;
    b.claimBatch = claimBatch;
    b.shutdownTimeout = shutdownTimeout;
    b.sweepInterval = sweepInterval;
    b.backoff = backoff;
    b.executor = executor;
    b.nonRetryable = nonRetryable;
    b.keepLeaseWhileRunning = keepLeaseWhileRunning;
    return b;
  }

  @Override
  public String toString() {
    return "WorkerOptions[concurrency=" + concurrency + ", lease=" + lease + ", claimBatch="
        + claimBatch + ", shutdownTimeout=" + shutdownTimeout + ", sweepInterval=" + sweepInterval
        + ", backoff=" + backoff + (nonRetryable.isEmpty() ? "" : ", nonRetryable=" + nonRetryable)
        + (keepLeaseWhileRunning ? ", keepLeaseWhileRunning" : "") + "]";
  }

  /** Builds {@link WorkerOptions}; each setter checks its value. */
  public static final class Builder {
    private int concurrency = DEFAULT_CONCURRENCY;
    private Duration lease = DEFAULT_LEASE;
    private int claimBatch = DEFAULT_CLAIM_BATCH;
    private Duration shutdownTimeout = DEFAULT_SHUTDOWN_TIMEOUT;
    private Duration sweepInterval = DEFAULT_SWEEP_INTERVAL;
    private Backoff backoff = Backoff.DEFAULT;
    private ExecutorService executor;
    private Set<Class<? extends Throwable>> nonRetryable = Set.of();
    private boolean keepLeaseWhileRunning;

    private Builder() {}

    /** See {@link WorkerOptions#keepLeaseWhileRunning()}. */
    public Builder keepLeaseWhileRunning(boolean keep) {
      this.keepLeaseWhileRunning = keep;
      return this;
    }

    public Builder concurrency(int concurrency) {
      if (concurrency < 1 || concurrency > 10_000) {
        throw new InvalidRequestException(
            "concurrency", "must be between 1 and 10000; got " + concurrency);
      }
      this.concurrency = concurrency;
      return this;
    }

    public Builder lease(Duration lease) {
      Objects.requireNonNull(lease, "lease");
      if (lease.toMillis() < 100 || lease.compareTo(Duration.ofDays(1)) > 0) {
        throw new InvalidRequestException(
            "lease", "must be between 100 ms and 1 day; got " + lease);
      }
      this.lease = lease;
      return this;
    }

    public Builder claimBatch(int claimBatch) {
      if (claimBatch < 1 || claimBatch > 1000) {
        throw new InvalidRequestException(
            "claimBatch", "must be between 1 and 1000; got " + claimBatch);
      }
      this.claimBatch = claimBatch;
      return this;
    }

    public Builder shutdownTimeout(Duration shutdownTimeout) {
      Objects.requireNonNull(shutdownTimeout, "shutdownTimeout");
      if (shutdownTimeout.isNegative()) {
        throw new InvalidRequestException(
            "shutdownTimeout", "must not be negative; got " + shutdownTimeout);
      }
      this.shutdownTimeout = shutdownTimeout;
      return this;
    }

    public Builder sweepInterval(Duration sweepInterval) {
      Objects.requireNonNull(sweepInterval, "sweepInterval");
      if (sweepInterval.toMillis() < 10 || sweepInterval.compareTo(Duration.ofMinutes(1)) > 0) {
        throw new InvalidRequestException(
            "sweepInterval", "must be between 10 ms and 1 minute; got " + sweepInterval);
      }
      this.sweepInterval = sweepInterval;
      return this;
    }

    public Builder backoff(Backoff backoff) {
      this.backoff = Objects.requireNonNull(backoff, "backoff");
      return this;
    }

    /**
     * Runs handlers on the caller's executor instead of the workers' own threads. The executor is
     * not shut down when the workers close: it belongs to the caller.
     */
    public Builder executor(ExecutorService executor) {
      this.executor = Objects.requireNonNull(executor, "executor");
      return this;
    }

    /**
     * Exception types that are not retried: a handler that throws an instance of one (the thrown
     * exception itself, not its causes) sends the job straight to the dead-letter set with that
     * exception as its error. Replaces any types set before; none by default.
     *
     * @since 0.3.0
     */
    @SafeVarargs
    public final Builder nonRetryable(Class<? extends Throwable>... types) {
      Objects.requireNonNull(types, "types");
      for (int i = 0; i < types.length; i++) {
        if (types[i] == null) {
          throw new InvalidRequestException("nonRetryable", "holds null at index " + i + "; name exception classes");
        }
      }
      this.nonRetryable = Set.copyOf(Arrays.asList(types));
      return this;
    }

    public WorkerOptions build() {
      return new WorkerOptions(this);
    }
  }
}
