package io.delayq;

import io.delayq.internal.ClientSettings;
import io.delayq.internal.DelayqClient;
import io.delayq.internal.Rules;
import io.delayq.internal.Telemetry;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The entry point: a connection to one Redis, one Redis Cluster, or the master that Redis Sentinels
 * watch, and the queues on it.
 *
 * <pre>{@code
 * try (Delayq delayq = Delayq.connect("redis://localhost:6379")) {
 *   JobQueue orders = delayq.queue("orders");
 *   orders.schedule(JobRequest.of("cancel 42").withId("order-42").withDelay(Duration.ofMinutes(30)));
 *   Workers workers = orders.startWorkers(job -> cancelIfUnpaid(job.payloadAsString()),
 *       WorkerOptions.builder().concurrency(8).build());
 * }
 * }</pre>
 *
 * <p>Thread-safe; make one per application and share it. {@link #close()} stops the workers it
 * started, in order, and then the connections.
 *
 * @since 0.1.0
 */
public final class Delayq implements AutoCloseable {
  private final DelayqClient client;

  private Delayq(ClientSettings settings, Telemetry telemetry) {
    this.client = new DelayqClient(settings, telemetry);
  }

  /**
   * Connects with the default settings.
   *
   * <p>Through Redis Sentinel, the URL is Lettuce's Sentinel URL, naming the Sentinels and, after
   * {@code #}, the name they monitor the master under:
   *
   * <pre>{@code
   * Delayq delayq = Delayq.connect("redis-sentinel://:secret@10.0.0.1:26379,10.0.0.2:26379,10.0.0.3:26379#mymaster");
   * }</pre>
   *
   * Every command, the wake-up subscription and the server clock then go to the current master,
   * and follow it after a failover without a restart: the Sentinels are asked at each reconnect,
   * and once a second, so that a connection still open to a demoted master moves too. The user and
   * password in the URL are the data nodes'; delayq sends the same to the Sentinels, which accept
   * them when they have the same password or none. Sentinels with a password of their own are not
   * supported by the URL (see docs/SENTINEL.md).
   *
   * @param redisUrl {@code redis://[user:password@]host:port[/db]}, or {@code rediss://…} for TLS.
   *     For a Redis Cluster, the URL of any node is enough (delayq asks the server whether it is a
   *     cluster); several seed nodes may be given separated by commas. For a master behind Redis
   *     Sentinel, {@code redis-sentinel://[[user:]password@]host1[:port1][,host2[:port2]...][/db]#masterName}
   *     ({@code rediss-sentinel://} for TLS to Sentinels and data nodes; a Sentinel's port defaults
   *     to 26379).
   * @throws RedisUnavailableException when Redis cannot be reached
   * @throws InvalidRequestException when the URL is malformed (a Sentinel URL without a master
   *     name, a port that is not a number from 1 to 65535), or the Sentinels know no master by the
   *     name given
   */
  public static Delayq connect(String redisUrl) {
    return builder().redisUrl(redisUrl).build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * The queue with this name, created with one partition on first use. Names are 1 to 128
   * letters, digits, {@code .}, {@code _}, {@code -} or {@code :}.
   */
  public JobQueue queue(String name) {
    return client.queue(name, 0);
  }

  /**
   * The queue with this name, created with {@code partitions} partitions on first use (at most
   * 1024). Partitions spread a queue's keys, and so its load, over the masters of a Redis Cluster;
   * on a single Redis they let many workers claim without contending for one key.
   *
   * <p>The count is fixed when the queue is first used, because a job is found by a hash of its id
   * modulo the count and every process using the queue relies on it. Asking for another count
   * later is refused, even for an empty queue; the exception says how to move to a new count (a
   * new queue name, producers moved to it, workers draining the old one).
   *
   * @throws QueueConfigurationException when the queue exists with another partition count
   */
  public JobQueue queue(String name, int partitions) {
    return client.queue(name, Rules.checkPartitions(partitions));
  }

  /** Names of every queue used on this Redis so far (and not deleted), sorted. */
  public List<String> queueNames() {
    return client.queueNames();
  }

  /**
   * One page of {@link #queueNames()}: at most {@code limit} names after the cursor's, sorted.
   * Reads only: listing never creates a queue.
   *
   * @param cursor null for the first page, else the {@link Page#nextCursor()} of the previous one
   * @param limit 1 to 1000
   * @throws InvalidRequestException when the cursor is not one this listing gave out, or the
   *     limit is out of range
   * @since 0.2.0
   */
  public Page<String> queueNames(String cursor, int limit) {
    return client.queueNames(cursor, limit);
  }

  /**
   * The queue if it has been used before on this Redis (and not deleted since); unlike {@link
   * #queue(String)}, never creates one, nor writes anything.
   */
  public Optional<JobQueue> existingQueue(String name) {
    return client.existingQueue(name);
  }

  /**
   * Asks every Redis master for a {@code PING} and its memory figures ({@code INFO memory}): one
   * entry per master, a single Redis being its own one master. For health checks; each call costs
   * two round trips per master.
   *
   * @throws RedisUnavailableException when a master cannot be reached
   * @throws OutcomeUnknownException when a master does not answer within the command timeout
   * @since 0.2.0
   */
  public List<RedisStatus> redisStatus() {
    return client.redisStatus();
  }

  /**
   * Names of the queues this client runs workers for right now: those with a {@link
   * JobQueue#startWorkers} pool that has not finished closing, sorted. A health check uses it to watch the
   * queues this application is meant to drain.
   *
   * @since 0.2.0
   */
  public Set<String> workerQueues() {
    return client.workerQueues();
  }

  /**
   * The worker processes alive now, from the heartbeats every client running workers or
   * forwarders writes to Redis; the same from any client of this Redis. Sorted by host, then pid.
   * A process that stops heartbeating drops out three {@linkplain Builder#heartbeatInterval
   * heartbeat intervals} after its last one; one that closes its client, at once. A heartbeat
   * entry that does not parse (another program's) is skipped.
   *
   * @since 0.4.0
   */
  public List<WorkerProcess> workerProcesses() {
    return client.workerProcesses();
  }

  /**
   * This client's own process identity: random, made when the client was built, as in {@link
   * WorkerProcess#id()} and {@link JobInfo#holder()}.
   *
   * @since 0.4.0
   */
  public String processId() {
    return client.processId();
  }

  /**
   * The history of all queues of this Redis together, by minute: see {@link
   * QueueAdmin#historyByMinute(int)}.
   *
   * @param minutes 1 to 1440
   * @throws IllegalArgumentException when {@code minutes} is out of range
   * @since 0.4.0
   */
  public List<HistoryBucket> historyByMinute(int minutes) {
    return client.historyByMinute(minutes);
  }

  /**
   * The history of all queues of this Redis together, by hour: see {@link
   * QueueAdmin#historyByHour(int)}.
   *
   * @param hours 1 to 168
   * @throws IllegalArgumentException when {@code hours} is out of range
   * @since 0.4.0
   */
  public List<HistoryBucket> historyByHour(int hours) {
    return client.historyByHour(hours);
  }

  /**
   * What each Redis master (and, when known, each replica) behind this client says about itself:
   * version, memory and eviction policy, persistence, clients, uptime and, on a cluster, the slots
   * it serves. A figure this Redis user may not read is left unknown (see {@link RedisNode}); a
   * node that cannot be reached fails the call. A few round trips per node.
   *
   * @throws RedisUnavailableException when a master cannot be reached
   * @throws OutcomeUnknownException when a master does not answer within the command timeout
   * @since 0.4.0
   */
  public List<RedisNode> redisNodes() {
    return client.redisNodes();
  }

  public boolean isClosed() {
    return client.isClosed();
  }

  /**
   * Closes in order: workers stop claiming; running handlers get each pool's shutdown timeout to
   * finish (and may still use this client meanwhile); jobs that never started go back to the
   * schedule at once; then the connections close. A handler still running after its timeout
   * keeps its lease, extended in the background, until it returns (or the process dies), and the
   * connections stay open for that. Idempotent; closes only what it created.
   */
  @Override
  public void close() {
    client.close();
  }

  /** Settings of a {@link Delayq}; each setter checks its value. */
  public static final class Builder {
    public static final int DEFAULT_MAX_PAYLOAD_BYTES = 1024 * 1024;
    public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(10);
    public static final int DEFAULT_DEAD_LETTER_LIMIT = 100_000;
    public static final Duration DEFAULT_DEAD_LETTER_RETENTION = Duration.ofDays(14);
    /** @since 0.2.0 */
    public static final Duration DEFAULT_IDEMPOTENCY_WINDOW = Duration.ofMinutes(5);
    /**
     * Bucket boundaries of the {@code delayq.job.lateness} histogram: 5 ms to 5 minutes.
     *
     * @since 0.2.0
     */
    public static final List<Duration> DEFAULT_LATENESS_SLOS = List.of(
        Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25), Duration.ofMillis(50),
        Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1),
        Duration.ofMillis(2500), Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(30),
        Duration.ofSeconds(60), Duration.ofMinutes(5));
    /** @since 0.2.0 */
    public static final Duration DEFAULT_QUEUE_DEPTH_INTERVAL = Duration.ofSeconds(10);
    /** @since 0.4.0 */
    public static final Duration DEFAULT_HEARTBEAT_INTERVAL = Duration.ofSeconds(5);
    /** @since 0.4.0 */
    public static final Duration DEFAULT_HISTORY_FLUSH_INTERVAL = Duration.ofSeconds(5);

    private String redisUrl;
    private int maxPayloadBytes = DEFAULT_MAX_PAYLOAD_BYTES;
    private Duration commandTimeout = DEFAULT_COMMAND_TIMEOUT;
    private int deadLetterLimit = DEFAULT_DEAD_LETTER_LIMIT;
    private Duration deadLetterRetention = DEFAULT_DEAD_LETTER_RETENTION;
    private boolean refuseEvictingRedis;
    private int replicasToWait;
    private Duration replicaTimeout = Duration.ZERO;
    private Duration idempotencyWindow = DEFAULT_IDEMPOTENCY_WINDOW;
    private MeterRegistry meterRegistry;
    private List<Duration> latenessSlos = DEFAULT_LATENESS_SLOS;
    private boolean latenessPercentileHistogram;
    private Duration queueDepthInterval = DEFAULT_QUEUE_DEPTH_INTERVAL;
    private ObservationRegistry observationRegistry;
    private Duration heartbeatInterval = DEFAULT_HEARTBEAT_INTERVAL;
    private boolean history = true;
    private Duration historyFlushInterval = DEFAULT_HISTORY_FLUSH_INTERVAL;

    private Builder() {}

    public Builder redisUrl(String redisUrl) {
      this.redisUrl = redisUrl;
      return this;
    }

    /** Largest payload accepted, in bytes (at most 512 MiB, Redis's own limit). */
    public Builder maxPayloadBytes(int maxPayloadBytes) {
      if (maxPayloadBytes < 1 || maxPayloadBytes > 512 * 1024 * 1024 - 64) {
        throw new InvalidRequestException(
            "maxPayloadBytes", "must be between 1 and 536870848; got " + maxPayloadBytes);
      }
      this.maxPayloadBytes = maxPayloadBytes;
      return this;
    }

    /** How long a call waits for Redis before failing with {@link RedisUnavailableException}. */
    public Builder commandTimeout(Duration commandTimeout) {
      Objects.requireNonNull(commandTimeout, "commandTimeout");
      if (commandTimeout.toMillis() < 1) {
        throw new InvalidRequestException("commandTimeout", "must be positive; got " + commandTimeout);
      }
      this.commandTimeout = commandTimeout;
      return this;
    }

    /** Most dead jobs kept per queue; the oldest go first beyond it. */
    public Builder deadLetterLimit(int deadLetterLimit) {
      if (deadLetterLimit < 1) {
        throw new InvalidRequestException("deadLetterLimit", "must be at least 1; got " + deadLetterLimit);
      }
      this.deadLetterLimit = deadLetterLimit;
      return this;
    }

    /** How long a dead job is kept before it is deleted. */
    public Builder deadLetterRetention(Duration deadLetterRetention) {
      Objects.requireNonNull(deadLetterRetention, "deadLetterRetention");
      if (deadLetterRetention.toMillis() < 1) {
        throw new InvalidRequestException(
            "deadLetterRetention", "must be positive; got " + deadLetterRetention);
      }
      this.deadLetterRetention = deadLetterRetention;
      return this;
    }

    /**
     * Whether to refuse to start on a Redis whose {@code maxmemory-policy} may evict keys (and so
     * lose jobs). By default such a Redis gets a loud warning.
     */
    public Builder refuseEvictingRedis(boolean refuse) {
      this.refuseEvictingRedis = refuse;
      return this;
    }

    /**
     * Makes every schedule durable: a call to {@code schedule} or {@code scheduleAll} returns only
     * after {@code replicas} replicas of the master that holds each job have confirmed the write
     * (Redis {@code WAIT}), so a failover right after it cannot lose the job. Without it, Redis
     * replicates asynchronously and a master that dies may take its last few milliseconds of
     * schedules with it. The cost is one replication round trip per call (per master touched).
     *
     * @param replicas replicas that must confirm, 1 to 16; 0 turns the wait off
     * @param timeout longest wait for them; when it passes, {@link NotReplicatedException} says
     *     which jobs are unconfirmed
     */
    public Builder waitForReplicas(int replicas, Duration timeout) {
      Objects.requireNonNull(timeout, "timeout");
      if (replicas < 0 || replicas > 16) {
        throw new InvalidRequestException("replicas", "must be between 0 and 16; got " + replicas);
      }
      if (replicas > 0 && (timeout.toMillis() < 1 || timeout.compareTo(Duration.ofMinutes(1)) > 0)) {
        throw new InvalidRequestException("timeout", "must be between 1 ms and 1 minute; got " + timeout);
      }
      this.replicasToWait = replicas;
      this.replicaTimeout = timeout;
      return this;
    }

    /**
     * How long the ids of finished jobs (acked or cancelled) scheduled with {@link
     * DuplicatePolicy#KEEP} are remembered, so that a retried {@code KEEP} schedule whose first try
     * went through and already ran is not run twice: the finished job counts as existing. A job
     * created by {@code REPLACE} is remembered too once a {@code KEEP} request found it; other
     * {@code REPLACE} jobs are not, since a retried {@code REPLACE} schedules the job again
     * whether or not it finished. Ids are kept for at least this long and at most twice it, and at most
     * 1,000,000 per partition in each half (beyond that the oldest go sooner). The window in force
     * on a queue is the longest one any of its clients uses, so a client with a shorter window
     * never erases ids another relies on. {@link Duration#ZERO} turns this client's own window off.
     * Each remembered id costs Redis about the bytes BENCHMARKS.md measures.
     *
     * @since 0.2.0
     */
    public Builder idempotencyWindow(Duration window) {
      Objects.requireNonNull(window, "window");
      if (window.isNegative() || window.compareTo(Duration.ofDays(7)) > 0) {
        throw new InvalidRequestException(
            "idempotencyWindow", "must be between 0 (off) and 7 days; got " + window);
      }
      this.idempotencyWindow = window;
      return this;
    }

    /**
     * Publishes delayq's meters to {@code registry}: jobs scheduled, delivered, acked, retried,
     * released and dead, expired leases recovered, handler durations and lateness (claim time minus
     * due time, by the Redis clock), per queue; and depth gauges (jobs scheduled, due, active,
     * expired and dead) of the queues this client schedules to, claims from or settles on, read in
     * the background every {@link #queueDepthInterval} (one stats call per queue), never at scrape
     * time. docs/METRICS.md lists every meter. Needs micrometer-core on the classpath; without this
     * call delayq never loads Micrometer. Works with Micrometer 1.16 and later.
     *
     * @since 0.2.0
     */
    public Builder meterRegistry(MeterRegistry registry) {
      this.meterRegistry = Objects.requireNonNull(registry, "registry");
      return this;
    }

    /**
     * Bucket boundaries of the {@code delayq.job.lateness} histogram (Micrometer's service-level
     * objectives); an empty list for none. Default {@link #DEFAULT_LATENESS_SLOS}. A registry's own
     * {@code MeterFilter} (such as Spring Boot's {@code management.metrics.distribution.*}) may
     * change them further.
     *
     * @since 0.2.0
     */
    public Builder latenessSlos(List<Duration> boundaries) {
      Objects.requireNonNull(boundaries, "boundaries");
      for (int i = 0; i < boundaries.size(); i++) {
        Duration d = boundaries.get(i);
        if (d == null || d.isNegative() || d.isZero()) {
          throw new InvalidRequestException(
              "latenessSlos[" + i + "]", "must be a positive duration; got " + d);
        }
      }
      this.latenessSlos = boundaries.stream().distinct().sorted().toList();
      return this;
    }

    /**
     * Whether {@code delayq.job.lateness} also publishes Micrometer's percentile histogram (some 70
     * buckets from 1 ms to 10 minutes, for {@code histogram_quantile} over many instances). Off by
     * default: the {@linkplain #latenessSlos SLO buckets} are cheaper.
     *
     * @since 0.2.0
     */
    public Builder latenessPercentileHistogram(boolean enabled) {
      this.latenessPercentileHistogram = enabled;
      return this;
    }

    /**
     * How often the depth gauges are read from Redis, 1 second to 1 hour; each read is one stats
     * call per queue (one short script per partition). Default {@link #DEFAULT_QUEUE_DEPTH_INTERVAL}.
     *
     * @since 0.2.0
     */
    public Builder queueDepthInterval(Duration interval) {
      Objects.requireNonNull(interval, "interval");
      if (interval.compareTo(Duration.ofSeconds(1)) < 0 || interval.compareTo(Duration.ofHours(1)) > 0) {
        throw new InvalidRequestException(
            "queueDepthInterval", "must be between 1 second and 1 hour; got " + interval);
      }
      this.queueDepthInterval = interval;
      return this;
    }

    /**
     * Observes each schedule call ({@code delayq.schedule}, a sender context whose trace headers are
     * stored with its jobs) and each handler run of this client's workers ({@code delayq.process},
     * whose context carries those headers); claims, sweeps, acks and lease keeping are never
     * observed. A tracer links the processing span to the scheduling one with {@link
     * io.delayq.observation.ProcessTracingObservationHandler}. Needs micrometer-observation on the
     * classpath.
     *
     * @since 0.2.0
     */
    public Builder observationRegistry(ObservationRegistry registry) {
      this.observationRegistry = Objects.requireNonNull(registry, "registry");
      return this;
    }

    /**
     * How often this client, while it runs workers or forwarders, writes its heartbeat to Redis
     * (see {@link Delayq#workerProcesses()}): at least 100 ms, at most 1 hour. The entry expires
     * three intervals after the last write. Default {@link #DEFAULT_HEARTBEAT_INTERVAL}.
     *
     * @since 0.4.0
     */
    public Builder heartbeatInterval(Duration interval) {
      Objects.requireNonNull(interval, "interval");
      if (interval.compareTo(Duration.ofMillis(100)) < 0 || interval.compareTo(Duration.ofHours(1)) > 0) {
        throw new InvalidRequestException(
            "heartbeatInterval", "must be between 100 ms and 1 hour; got " + interval);
      }
      this.heartbeatInterval = interval;
      return this;
    }

    /**
     * Whether this client adds what it does (jobs scheduled, delivered, acked, retried, dead, and
     * lateness) to the per-minute and per-hour history in Redis that {@link
     * QueueAdmin#historyByMinute} reads. On by default, with or without a meter registry; off, the
     * client writes no history (and still reads what others wrote).
     *
     * @since 0.4.0
     */
    public Builder history(boolean enabled) {
      this.history = enabled;
      return this;
    }

    /**
     * How often the counts this client gathered are added to the history in Redis (one pipelined
     * batch per flush, and a last one at {@link Delayq#close()}): 100 ms to 1 minute. A process
     * that crashes loses at most this long of its counts. Default {@link
     * #DEFAULT_HISTORY_FLUSH_INTERVAL}.
     *
     * @since 0.4.0
     */
    public Builder historyFlushInterval(Duration interval) {
      Objects.requireNonNull(interval, "interval");
      if (interval.compareTo(Duration.ofMillis(100)) < 0 || interval.compareTo(Duration.ofMinutes(1)) > 0) {
        throw new InvalidRequestException(
            "historyFlushInterval", "must be between 100 ms and 1 minute; got " + interval);
      }
      this.historyFlushInterval = interval;
      return this;
    }

    /**
     * Connects.
     *
     * @throws RedisUnavailableException when Redis cannot be reached
     * @throws InvalidRequestException when the URL is missing or malformed
     */
    public Delayq build() {
      Telemetry telemetry = Telemetry.create(
          meterRegistry, latenessSlos, latenessPercentileHistogram, queueDepthInterval, commandTimeout,
          observationRegistry);
      return new Delayq(
          new ClientSettings(
              redisUrl,
              maxPayloadBytes,
              commandTimeout,
              deadLetterLimit,
              deadLetterRetention,
              refuseEvictingRedis,
              replicasToWait,
              replicaTimeout,
              idempotencyWindow,
              heartbeatInterval,
              history,
              historyFlushInterval),
          telemetry);
    }
  }
}
