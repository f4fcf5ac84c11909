package io.delayq.spring.autoconfigure;

import io.delayq.Delayq;
import io.delayq.WorkerOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * Settings of delayq in a Spring Boot application, under {@code delayq.*}. Defaults are the ones of
 * {@link Delayq.Builder}. One nested group per concern ({@code redis}, {@code dead-letter}, {@code
 * wait-for-replicas}, {@code health}, ...).
 *
 * @since 0.2.0
 */
@ConfigurationProperties("delayq")
public class DelayqProperties {
  private final Redis redis = new Redis();

  /** How long a call waits for Redis before it fails; also the connect timeout. */
  private Duration commandTimeout = Delayq.Builder.DEFAULT_COMMAND_TIMEOUT;

  /** Largest payload a job may carry; larger ones are refused when scheduled (at most 512MB). */
  private DataSize maxPayloadSize = DataSize.ofBytes(Delayq.Builder.DEFAULT_MAX_PAYLOAD_BYTES);

  /**
   * Whether to refuse to start on a Redis whose maxmemory-policy may evict keys, and so lose jobs.
   * When false, such a Redis gets a loud warning in the log and in the health details.
   */
  private boolean refuseEvictingRedis;

  /**
   * How long the ids of finished jobs scheduled with the KEEP duplicate policy are remembered, so
   * that a retried schedule of a job that already ran does not run it again. 0 turns it off; at
   * most 7 days.
   */
  private Duration idempotencyWindow = Delayq.Builder.DEFAULT_IDEMPOTENCY_WINDOW;

  private final DeadLetter deadLetter = new DeadLetter();

  private final WaitForReplicas waitForReplicas = new WaitForReplicas();

  private final Health health = new Health();

  private final Metrics metrics = new Metrics();

  public Redis getRedis() {
    return redis;
  }

  public Duration getCommandTimeout() {
    return commandTimeout;
  }

  public void setCommandTimeout(Duration commandTimeout) {
    this.commandTimeout = commandTimeout;
  }

  public DataSize getMaxPayloadSize() {
    return maxPayloadSize;
  }

  public void setMaxPayloadSize(DataSize maxPayloadSize) {
    this.maxPayloadSize = maxPayloadSize;
  }

  public boolean isRefuseEvictingRedis() {
    return refuseEvictingRedis;
  }

  public void setRefuseEvictingRedis(boolean refuseEvictingRedis) {
    this.refuseEvictingRedis = refuseEvictingRedis;
  }

  public Duration getIdempotencyWindow() {
    return idempotencyWindow;
  }

  public void setIdempotencyWindow(Duration idempotencyWindow) {
    this.idempotencyWindow = idempotencyWindow;
  }

  public DeadLetter getDeadLetter() {
    return deadLetter;
  }

  public WaitForReplicas getWaitForReplicas() {
    return waitForReplicas;
  }

  public Metrics getMetrics() {
    return metrics;
  }

  public Health getHealth() {
    return health;
  }

  /** Where delayq's Redis is. */
  public static class Redis {
    /**
     * Redis URL for delayq: redis://[user:password@]host:port[/db], rediss:// for TLS, several
     * comma-separated for a cluster, redis-sentinel://[:password@]host:26379[,host2:26379]#master
     * for Sentinel. When unset, delayq uses the application's own Redis settings
     * (spring.data.redis.* or a @ServiceConnection).
     */
    private String url;

    private final Embedded embedded = new Embedded();

    public String getUrl() {
      return url;
    }

    public void setUrl(String url) {
      this.url = url;
    }

    public Embedded getEmbedded() {
      return embedded;
    }
  }

  /**
   * A redis-server started for the application, for development and tests: used only when
   * io.delayq:delayq-embedded is on the classpath and neither delayq.redis.url nor the
   * application's own Redis settings name a Redis.
   */
  public static class Embedded {
    /** Whether to start an embedded redis-server when no Redis is configured. */
    private boolean enabled = true;

    /**
     * Directory for the embedded Redis's append-only file, so that jobs survive a restart of the
     * application; when unset, a private temporary directory deleted when the application stops.
     */
    private Path dataDir;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public Path getDataDir() {
      return dataDir;
    }

    public void setDataDir(Path dataDir) {
      this.dataDir = dataDir;
    }
  }

  /** Jobs that used all their attempts. */
  public static class DeadLetter {
    /** Most dead jobs kept per queue; beyond it the oldest are deleted first. */
    private int limit = Delayq.Builder.DEFAULT_DEAD_LETTER_LIMIT;

    /** How long a dead job is kept before it is deleted. */
    private Duration retention = Delayq.Builder.DEFAULT_DEAD_LETTER_RETENTION;

    public int getLimit() {
      return limit;
    }

    public void setLimit(int limit) {
      this.limit = limit;
    }

    public Duration getRetention() {
      return retention;
    }

    public void setRetention(Duration retention) {
      this.retention = retention;
    }
  }

  /** Durable schedules: each schedule call returns only once replicas have the job. */
  public static class WaitForReplicas {
    /**
     * Replicas of the master holding a job that must confirm each schedule (Redis WAIT) before the
     * call returns, 1 to 16; 0 turns the wait off.
     */
    private int replicas;

    /**
     * Longest wait for the replicas' confirmation (1ms to 1m); past it the schedule fails with
     * NotReplicatedException naming the unconfirmed jobs.
     */
    private Duration timeout = Duration.ofSeconds(1);

    public int getReplicas() {
      return replicas;
    }

    public void setReplicas(int replicas) {
      this.replicas = replicas;
    }

    public Duration getTimeout() {
      return timeout;
    }

    public void setTimeout(Duration timeout) {
      this.timeout = timeout;
    }
  }

  /** The "delayq" Actuator health indicator (management.health.delayq.enabled turns it off). */
  /**
   * delayq's Micrometer meters and observations, given the application's MeterRegistry and
   * ObservationRegistry when it has them (see docs/METRICS.md for every meter).
   */
  public static class Metrics {
    /** Whether the client publishes its meters to the application's MeterRegistry. */
    private boolean enabled = true;

    /** Bucket boundaries (service level objectives) of the delayq.job.lateness timer. */
    private List<Duration> latenessSlos = new ArrayList<>(Delayq.Builder.DEFAULT_LATENESS_SLOS);

    /** Whether the delayq.job.lateness timer also publishes a percentile histogram. */
    private boolean latenessPercentileHistogram;

    /** How often the per-queue depth gauges are read from Redis, in the background. */
    private Duration queueDepthInterval = Delayq.Builder.DEFAULT_QUEUE_DEPTH_INTERVAL;

    /** Whether each schedule call and each handled job is an observation (and so a span). */
    private boolean observationsEnabled = true;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public List<Duration> getLatenessSlos() {
      return latenessSlos;
    }

    public void setLatenessSlos(List<Duration> latenessSlos) {
      this.latenessSlos = latenessSlos;
    }

    public boolean isLatenessPercentileHistogram() {
      return latenessPercentileHistogram;
    }

    public void setLatenessPercentileHistogram(boolean latenessPercentileHistogram) {
      this.latenessPercentileHistogram = latenessPercentileHistogram;
    }

    public Duration getQueueDepthInterval() {
      return queueDepthInterval;
    }

    public void setQueueDepthInterval(Duration queueDepthInterval) {
      this.queueDepthInterval = queueDepthInterval;
    }

    public boolean isObservationsEnabled() {
      return observationsEnabled;
    }

    public void setObservationsEnabled(boolean observationsEnabled) {
      this.observationsEnabled = observationsEnabled;
    }
  }

  public static class Health {
    /**
     * Queues the health indicator watches besides those this application runs workers or
     * listeners for, e.g. queues drained by another service. Queues that do not exist yet are
     * reported as such, never created.
     */
    private List<String> queues = new ArrayList<>();

    /**
     * The sweep interval of the workers that drain the watched queues: the longest a due job
     * normally waits for a worker that is idle.
     */
    private Duration sweepInterval = WorkerOptions.DEFAULT_SWEEP_INTERVAL;

    /**
     * A queue is stuck (health DOWN) when a job has been due and unclaimed for longer than this
     * many sweep intervals and the queue is not paused.
     */
    private int stuckAfterSweeps = 30;

    /**
     * Share of Redis's maxmemory in use (0 to 1) above which health is DOWN: past it Redis soon
     * refuses writes (noeviction) or evicts keys, and so jobs.
     */
    private double memoryThreshold = 0.9;

    /**
     * Longest a health check waits for Redis before it reports DOWN; a Redis that hangs is then
     * reported at once, not after delayq.command-timeout, and holds no more than one thread.
     */
    private Duration timeout = Duration.ofSeconds(2);

    public Duration getTimeout() {
      return timeout;
    }

    public void setTimeout(Duration timeout) {
      this.timeout = timeout;
    }

    public List<String> getQueues() {
      return queues;
    }

    public void setQueues(List<String> queues) {
      this.queues = queues;
    }

    public Duration getSweepInterval() {
      return sweepInterval;
    }

    public void setSweepInterval(Duration sweepInterval) {
      this.sweepInterval = sweepInterval;
    }

    public int getStuckAfterSweeps() {
      return stuckAfterSweeps;
    }

    public void setStuckAfterSweeps(int stuckAfterSweeps) {
      this.stuckAfterSweeps = stuckAfterSweeps;
    }

    public double getMemoryThreshold() {
      return memoryThreshold;
    }

    public void setMemoryThreshold(double memoryThreshold) {
      this.memoryThreshold = memoryThreshold;
    }

    /** How long a due job may wait unclaimed before its queue counts as stuck. */
    public Duration stuckAfter() {
      return sweepInterval.multipliedBy(stuckAfterSweeps);
    }
  }
}
