package io.delayq.spring.autoconfigure;

import io.delayq.Delayq;
import io.delayq.ListForwarding;
import io.delayq.SortedSetAdoption;
import io.delayq.WorkerOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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

  private final Forward forward = new Forward();

  /**
   * Hand-rolled sorted-set delay queues to take over, by the delayq queue their members go to,
   * e.g. delayq.adopt.orders.source=delayed:orders. Each entry runs a bridge in the background
   * that keeps moving the sorted set's members into the queue while the old producers go on
   * writing to it (see docs/ADOPTING.md).
   */
  private Map<String, Adopt> adopt = new LinkedHashMap<>();

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

  public Forward getForward() {
    return forward;
  }

  public Map<String, Adopt> getAdopt() {
    return adopt;
  }

  public void setAdopt(Map<String, Adopt> adopt) {
    this.adopt = adopt;
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

  /**
   * Due jobs handed to another system instead of a handler here, one forwarder per queue: {@code
   * rabbitmq} (needs io.delayq:delayq-rabbitmq) or {@code list}. A queue is forwarded to one target
   * at most.
   *
   * @since 0.3.0
   */
  public static class Forward {
    /**
     * Queues whose due jobs are published to a RabbitMQ exchange, by queue name, e.g.
     * delayq.forward.rabbitmq.orders.exchange=orders. Each entry takes exchange, routing-key,
     * max-in-flight, confirm-timeout and lease. The connection is the application's own
     * (spring.rabbitmq.*).
     */
    private Map<String, Rabbit> rabbitmq = new LinkedHashMap<>();

    /**
     * Queues whose due jobs are pushed onto a Redis list, by queue name, e.g.
     * delayq.forward.list.orders.list=execute_queue. Each entry takes list, format, push-at, batch
     * and lease.
     */
    private Map<String, RedisList> list = new LinkedHashMap<>();

    public Map<String, Rabbit> getRabbitmq() {
      return rabbitmq;
    }

    public void setRabbitmq(Map<String, Rabbit> rabbitmq) {
      this.rabbitmq = rabbitmq;
    }

    public Map<String, RedisList> getList() {
      return list;
    }

    public void setList(Map<String, RedisList> list) {
      this.list = list;
    }
  }

  /**
   * One queue forwarded to RabbitMQ. Each job becomes a persistent message whose messageId is the
   * job id; it leaves delayq once the broker confirmed it (at least once).
   *
   * @since 0.3.0
   */
  public static class Rabbit {
    /** Exchange the jobs are published to; required, and it must exist on the broker. */
    private String exchange;

    /**
     * Routing key of every message; required, so that a forgotten key does not make every job
     * unroutable. Set it empty for an exchange that ignores it (fanout, headers).
     */
    private String routingKey;

    /** Most messages published and not yet confirmed at once; also the most duplicates a crash can cause. */
    private int maxInFlight = 1000;

    /** How long a message may wait for the broker's confirm before its job is handed back and retried. */
    private Duration confirmTimeout = Duration.ofSeconds(10);

    /** How long each claimed job is leased; longer than confirm-timeout. */
    private Duration lease = Duration.ofSeconds(60);

    public String getExchange() {
      return exchange;
    }

    public void setExchange(String exchange) {
      this.exchange = exchange;
    }

    public String getRoutingKey() {
      return routingKey;
    }

    public void setRoutingKey(String routingKey) {
      this.routingKey = routingKey;
    }

    public int getMaxInFlight() {
      return maxInFlight;
    }

    public void setMaxInFlight(int maxInFlight) {
      this.maxInFlight = maxInFlight;
    }

    public Duration getConfirmTimeout() {
      return confirmTimeout;
    }

    public void setConfirmTimeout(Duration confirmTimeout) {
      this.confirmTimeout = confirmTimeout;
    }

    public Duration getLease() {
      return lease;
    }

    public void setLease(Duration lease) {
      this.lease = lease;
    }
  }

  /**
   * One queue forwarded to a Redis list on delayq's Redis (see docs/LIST-FORWARDING.md).
   *
   * @since 0.3.0
   */
  public static class RedisList {
    /** Key of the Redis list the due jobs are pushed onto; required. */
    private String list;

    /**
     * What each list element holds: raw (the payload bytes as scheduled, for an existing consumer)
     * or envelope (a JSON object with id, attempt, dueAt and payload).
     */
    private String format = "raw";

    /** End of the list jobs are pushed at: left (LPUSH, for consumers that pop from the right) or right. */
    private String pushAt = "left";

    /** Most jobs moved from one partition per script call. */
    private int batch = ListForwarding.DEFAULT_BATCH;

    /** Where a job is leased, pushed, then acked: how long it stays leased before it is pushed again. */
    private Duration lease = ListForwarding.DEFAULT_LEASE;

    public String getList() {
      return list;
    }

    public void setList(String list) {
      this.list = list;
    }

    public String getFormat() {
      return format;
    }

    public void setFormat(String format) {
      this.format = format;
    }

    public String getPushAt() {
      return pushAt;
    }

    public void setPushAt(String pushAt) {
      this.pushAt = pushAt;
    }

    public int getBatch() {
      return batch;
    }

    public void setBatch(int batch) {
      this.batch = batch;
    }

    public Duration getLease() {
      return lease;
    }

    public void setLease(Duration lease) {
      this.lease = lease;
    }
  }

  /**
   * One hand-rolled sorted set taken over. Exactly one of id-field and id-from-member-hash names
   * how members become job ids: the choice decides which members count as the same job, and
   * cannot be changed once jobs were adopted without adopting some members twice.
   *
   * @since 0.3.0
   */
  public static class Adopt {
    /** Key of the sorted set the old producers ZADD to; required. */
    private String source;

    /**
     * What the scores count: seconds, milliseconds, or detect (decided from the scores present,
     * refusing a source that mixes both).
     */
    private String scoreUnit = "detect";

    /** Top-level JSON field of each member whose value is the job id, e.g. orderId. */
    private String idField;

    /**
     * Whether each job id is the SHA-256 of the member's bytes (identical members stay one job),
     * for members that are not JSON objects with an id field.
     */
    private boolean idFromMemberHash;

    /**
     * Which members are moved: due (only those due, the future stays in the sorted set) or all
     * (every member; each still runs at its own time).
     */
    private String mode = "due";

    /** Members read and moved per script call (1 to 10000). */
    private int batch = SortedSetAdoption.DEFAULT_BATCH;

    /** How often the sorted set is looked at. */
    private Duration pollInterval = SortedSetAdoption.DEFAULT_POLL_INTERVAL;

    public String getSource() {
      return source;
    }

    public void setSource(String source) {
      this.source = source;
    }

    public String getScoreUnit() {
      return scoreUnit;
    }

    public void setScoreUnit(String scoreUnit) {
      this.scoreUnit = scoreUnit;
    }

    public String getIdField() {
      return idField;
    }

    public void setIdField(String idField) {
      this.idField = idField;
    }

    public boolean isIdFromMemberHash() {
      return idFromMemberHash;
    }

    public void setIdFromMemberHash(boolean idFromMemberHash) {
      this.idFromMemberHash = idFromMemberHash;
    }

    public String getMode() {
      return mode;
    }

    public void setMode(String mode) {
      this.mode = mode;
    }

    public int getBatch() {
      return batch;
    }

    public void setBatch(int batch) {
      this.batch = batch;
    }

    public Duration getPollInterval() {
      return pollInterval;
    }

    public void setPollInterval(Duration pollInterval) {
      this.pollInterval = pollInterval;
    }
  }
}
