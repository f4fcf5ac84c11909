package io.delayq.internal;

import io.delayq.DelayqClosedException;
import io.delayq.InvalidRequestException;
import io.delayq.JobQueue;
import io.delayq.Page;
import io.delayq.QueueConfigurationException;
import io.delayq.RedisStatus;
import io.delayq.RedisUnavailableException;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connection to Redis behind a {@code Delayq}: one command connection shared by all queues
 * (Lettuce pipelines concurrent calls on it), and one pub/sub connection for wake-ups, opened when
 * the first workers start.
 */
public final class DelayqClient implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DelayqClient.class);

  static final int MAX_QUEUE_NAMES_PER_PAGE = 1000;
  private static final String QUEUE_NAMES_LISTING = "queues";

  private final ClientSettings settings;
  private final Telemetry telemetry;
  private final ProcessIdentity identity = ProcessIdentity.create();
  private final byte[] processIdBytes = Keys.bytes(identity.id());
  private final RedisClock redisClock = new RedisClock(System::currentTimeMillis);
  private final Heartbeat heartbeat;
  private final HistoryRecorder history;
  private final String displayUri;
  private final ClientResources resources;
  private final RedisConnector connector;
  private final StatefulConnection<byte[], byte[]> connection;
  private final RedisClusterAsyncCommands<byte[], byte[]> commands;
  private final ServerTime serverTime;
  private java.util.concurrent.ThreadPoolExecutor scheduleTender;
  private final ScriptRunner scripts;
  private StatefulConnection<byte[], byte[]> workerConnection;
  private volatile ScriptRunner workerScripts;
  private final WakeBus wakeBus;
  private final LeaseKeeper leaseKeeper = new LeaseKeeper(Ticker.SYSTEM);
  private final LinkWatchdog linkWatchdog;
  private final QueueRegistry registry = new QueueRegistry(this);
  private final List<WorkerPool> pools = new CopyOnWriteArrayList<>();
  private final List<ListForwarder> forwarders = new CopyOnWriteArrayList<>();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final AtomicBoolean closing = new AtomicBoolean();

  public DelayqClient(ClientSettings settings) {
    this(settings, Telemetry.NONE);
  }

  public DelayqClient(ClientSettings settings, Telemetry telemetry) {
    this.settings = settings;
    this.telemetry = telemetry;
    this.heartbeat = new Heartbeat(this, identity, settings.heartbeatInterval(), redisClock);
    this.history = new HistoryRecorder(this, redisClock, settings.historyFlushInterval(), settings.history());
    List<RedisURI> uris = RedisUrls.parse(settings.redisUrl());
    this.displayUri = RedisUrls.redact(uris);
    this.resources =
        DefaultClientResources.builder()
            .ioThreadPoolSize(2)
            .computationThreadPoolSize(2)
            // why: after Redis returns, resume within about a second, not Lettuce's 30 s cap
            .reconnectDelay(LinkWatchdog.reconnectDelay())
            .build();
    // why: a path that silently stops forwarding is never noticed by TCP on its own (keepalive
    // probes may be answered by a middlebox); a link that answers no PING within the command
    // timeout (at least 2 s) is dropped, and Lettuce reconnects it. Not less: a PING queues behind
    // a large pipelined scheduleAll, and a healthy but busy link must not be dropped.
    this.linkWatchdog =
        new LinkWatchdog(
            resources,
            LinkWatchdog.DEFAULT_INTERVAL,
            settings.commandTimeout().compareTo(LinkWatchdog.DEFAULT_PROBE_TIMEOUT) > 0
                ? settings.commandTimeout()
                : LinkWatchdog.DEFAULT_PROBE_TIMEOUT);
    ClientOptions options =
        ClientOptions.builder()
            .autoReconnect(true)
            // why: a producer must fail at once while Redis is away, not queue commands silently
            .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
            // why: no Lettuce command timeouts; they schedule a timer task per command, which cuts
            // a synchronous caller's rate several times over. Callers bound their own waits instead.
            .timeoutOptions(TimeoutOptions.builder().timeoutCommands(false).build())
            .socketOptions(SocketOptions.builder().connectTimeout(settings.commandTimeout()).keepAlive(true).build())
            .build();
    try {
      this.connector = RedisConnector.open(resources, uris, options);
    } catch (InvalidRequestException e) {
      resources.shutdown(0, 2, TimeUnit.SECONDS);
      throw e;
    } catch (RuntimeException e) {
      resources.shutdown(0, 2, TimeUnit.SECONDS);
      throw new RedisUnavailableException(
          "cannot connect to Redis at " + displayUri + ": " + e.getMessage()
              + ". Check that Redis is running there and that the URL, user and password are right",
          e);
    }
    this.connection = connector.main();
    this.commands = RedisConnector.commands(connection);
    nameConnection(connection, "delayq-producer");
    linkWatchdog.watch("producer", connection);
    this.serverTime = ServerTime.probe(connection);
    this.scripts = new ScriptRunner(commands, serverTime);
    this.wakeBus =
        new WakeBus(
            connector,
            resources,
            c -> linkWatchdog.watch("wake-up", c),
            linkWatchdog::unwatch,
            channel -> commands.publish(channel, Keys.bytes("probe")).toCompletableFuture());
    checkEvictionPolicy();
    openWorkerConnection();
    redisClock.refresh(commands.time().toCompletableFuture(), redisClock.wallMillis());
  }

  private void checkEvictionPolicy() {
    Map<String, String> policies;
    try {
      policies = connector.configOfMasters("maxmemory-policy");
    } catch (RuntimeException e) {
      log.debug("cannot read maxmemory-policy from {} (CONFIG may be disabled): {}", displayUri, e.toString());
      return;
    }
    Map.Entry<String, String> evicting =
        policies.entrySet().stream()
            .filter(e -> e.getValue() != null && !e.getValue().equals("noeviction"))
            .findFirst()
            .orElse(null);
    if (evicting == null) {
      return;
    }
    String policy = evicting.getValue();
    String message =
        "Redis at " + (connector.isCluster() || connector.isSentinel() ? evicting.getKey() : displayUri)
            + " has maxmemory-policy '" + policy
            + "': when it runs out of memory it may evict delayq's keys and silently lose jobs."
            + " Set maxmemory-policy to noeviction on this Redis";
    if (settings.refuseEvictingRedis()) {
      close();
      throw new QueueConfigurationException(message + ".");
    }
    log.warn("{} (or build the client with refuseEvictingRedis(true) to refuse to start).", message);
  }

  /** The queue {@code name}; {@code partitions} is 0 to use the stored count (1 for a new queue). */
  public JobQueue queue(String name, int partitions) {
    checkOpen("queue(" + name + ")");
    return registry.queue(name, partitions);
  }

  /** Names of every queue ever used on this Redis, sorted. */
  public List<String> queueNames() {
    checkOpen("queueNames()");
    return registry.queueNames();
  }

  /**
   * At most {@code limit} queue names after the cursor's, sorted. The names are read whole (one
   * {@code SMEMBERS}, cheap for thousands of queues) and cut here; what paging bounds is the work
   * the caller does per name, such as reading its stats.
   */
  public Page<String> queueNames(String cursor, int limit) {
    if (limit < 1 || limit > MAX_QUEUE_NAMES_PER_PAGE) {
      throw new InvalidRequestException("limit", "must be between 1 and " + MAX_QUEUE_NAMES_PER_PAGE + "; got " + limit);
    }
    String after = cursor == null ? null : Cursors.decode(QUEUE_NAMES_LISTING, cursor).member();
    checkOpen("queueNames()");
    List<String> names = registry.queueNames();
    int from = 0;
    if (after != null) {
      int at = Collections.binarySearch(names, after);
      from = at >= 0 ? at + 1 : -at - 1;
    }
    int to = Math.min(names.size(), from + limit);
    List<String> page = names.subList(from, to);
    Optional<String> next =
        to < names.size() ? Optional.of(Cursors.encode(QUEUE_NAMES_LISTING, 0, page.get(page.size() - 1))) : Optional.empty();
    return new Page<>(page, next);
  }

  /** The queue if it has been used before; never creates one. */
  public Optional<JobQueue> existingQueue(String name) {
    checkOpen("existingQueue(" + name + ")");
    return registry.existingQueue(name);
  }

  /** Each master's PING round trip and memory figures. */
  public List<RedisStatus> redisStatus() {
    checkOpen("redisStatus()");
    return ServerProbe.probe(this, Ticker.SYSTEM);
  }

  /** The worker processes alive now, from the heartbeats in Redis. */
  public List<io.delayq.WorkerProcess> workerProcesses() {
    checkOpen("workerProcesses()");
    return Heartbeat.list(this);
  }

  /** What this client works on now, per queue, for its heartbeat. */
  List<io.delayq.WorkerProcess.QueueWork> queueWork() {
    List<io.delayq.WorkerProcess.QueueWork> work = new ArrayList<>();
    for (WorkerPool pool : pools) {
      work.add(pool.work());
    }
    for (ListForwarder forwarder : forwarders) {
      work.add(forwarder.work());
    }
    return Heartbeat.summarize(work);
  }

  Heartbeat heartbeat() {
    return heartbeat;
  }

  RedisClock redisClock() {
    return redisClock;
  }

  /** This client's identity, made when it was built; see {@link ProcessIdentity}. */
  public String processId() {
    return identity.id();
  }

  /** The process id as a script argument. */
  byte[] processIdBytes() {
    return processIdBytes;
  }

  ProcessIdentity identity() {
    return identity;
  }

  /** All queues' history by minute. */
  public List<io.delayq.HistoryBucket> historyByMinute(int minutes) {
    HistoryFields.checkMinutes(minutes);
    checkOpen("historyByMinute()");
    return HistoryRecorder.read(this, minutes, HistoryFields.MINUTE, Keys::allHistoryMinute);
  }

  /** All queues' history by hour. */
  public List<io.delayq.HistoryBucket> historyByHour(int hours) {
    HistoryFields.checkHours(hours);
    checkOpen("historyByHour()");
    return HistoryRecorder.read(this, hours, HistoryFields.HOUR, Keys::allHistoryHour);
  }

  HistoryRecorder history() {
    return history;
  }

  /** What each master (and each cluster replica) says about itself. */
  public List<io.delayq.RedisNode> redisNodes() {
    checkOpen("redisNodes()");
    return ServerProbe.nodes(this, Ticker.SYSTEM);
  }

  /** Queues with a worker pool of this client that is not closed. */
  public Set<String> workerQueues() {
    Set<String> names = new TreeSet<>();
    for (WorkerPool pool : pools) {
      names.add(pool.queue());
    }
    return Collections.unmodifiableSet(names);
  }

  QueueRegistry registry() {
    return registry;
  }

  void checkOpen(String what) {
    if (closed.get()) {
      throw new DelayqClosedException(what);
    }
  }

  ClientSettings settings() {
    return settings;
  }

  Meters meters() {
    return telemetry.meters();
  }

  Observations observations() {
    return telemetry.observations();
  }

  /** Waits for a reply to a caller's synchronous call and maps its failure. */
  <T> T await(CompletableFuture<T> future, String queue, String id, long token) {
    return Errors.await(future, settings.commandTimeout(), displayUri, queue, id, token);
  }

  /** Like {@link #await(CompletableFuture, String, String, long)}, for a call Redis may hold {@code extra} longer. */
  <T> T await(CompletableFuture<T> future, Duration extra, String queue, String id) {
    return Errors.await(future, settings.commandTimeout().plus(extra), displayUri, queue, id, 0);
  }

  String displayUri() {
    return displayUri;
  }

  RedisClusterAsyncCommands<byte[], byte[]> async() {
    return commands;
  }

  RedisConnector connector() {
    return connector;
  }

  ScriptRunner scripts() {
    return scripts;
  }

  /**
   * The connection workers claim and ack on. Separate from the one producers use so that a large
   * pipelined {@code scheduleAll} never queues ahead of a claim, an ack or a lease extension. It is
   * opened with the client; until it is open (Redis went away in between) calls share the main
   * connection. Never blocks: it is called from Lettuce's I/O threads too.
   */
  ScriptRunner workerScripts() {
    ScriptRunner worker = workerScripts;
    return worker != null ? worker : scripts;
  }

  /** Opens the worker connection now, or keeps trying each second on a thread of its own. */
  private void openWorkerConnection() {
    if (tryOpenWorkerConnection()) {
      return;
    }
    Thread opener = new Thread(() -> {
      while (!closing.get() && !tryOpenWorkerConnection()) {
        try {
          Thread.sleep(1_000);
        } catch (InterruptedException e) {
          return;
        }
      }
    }, "delayq-connect-worker");
    opener.setDaemon(true);
    opener.start();
  }

  private synchronized boolean tryOpenWorkerConnection() {
    if (closing.get()) {
      return true;
    }
    try {
      workerConnection = connector.connect("worker");
      nameConnection(workerConnection, "delayq-worker");
      linkWatchdog.watch("worker", workerConnection);
      workerScripts = new ScriptRunner(RedisConnector.commands(workerConnection), serverTime);
      return true;
    } catch (RuntimeException e) {
      log.debug("no separate worker connection to {} yet: {}", displayUri, e.toString());
      return false;
    }
  }

  /**
   * Names a connection (CLIENT SETNAME), so that CLIENT LIST shows which of delayq's connections
   * is which, and names it again each time it reconnects: Lettuce restores a name after a
   * reconnect only when it came from the {@code RedisURI}, not one set by command (seen with
   * Lettuce 6.8 and 7.7), and a failover reconnects every connection. A Redis that denies CLIENT
   * to this user just keeps it unnamed.
   */
  static void nameConnection(StatefulConnection<byte[], byte[]> connection, String name) {
    setName(RedisConnector.commands(connection), name);
    connection.addListener(new RedisConnectionStateListener() {
      @Override
      public void onRedisConnected(RedisChannelHandler<?, ?> handler, SocketAddress address) {
        setName(RedisConnector.commands(connection), name);
      }
    });
  }

  private static void setName(RedisClusterAsyncCommands<byte[], byte[]> commands, String name) {
    commands.clientSetname(Keys.bytes(name)).exceptionally(e -> {
      log.debug("CLIENT SETNAME {} refused: {}", name, e.toString());
      return null;
    });
  }

  LeaseKeeper leaseKeeper() {
    return leaseKeeper;
  }

  ServerTime serverTime() {
    return serverTime;
  }

  WakeBus wakeBus() {
    return wakeBus;
  }

  void register(WorkerPool pool) {
    pools.add(pool);
    heartbeat.workStarted();
  }

  void unregister(WorkerPool pool) {
    if (pools.remove(pool)) {
      heartbeat.workStopped();
    }
  }

  void register(ListForwarder forwarder) {
    forwarders.add(forwarder);
    heartbeat.workStarted();
  }

  void unregister(ListForwarder forwarder) {
    if (forwarders.remove(forwarder)) {
      heartbeat.workStopped();
    }
  }

  public boolean isClosed() {
    return closed.get();
  }

  /**
   * Closes in order: every pool stops claiming and hands back what it never started; running
   * handlers get their pools' shutdown timeouts (at the same time) to finish, and may still use
   * this client meanwhile; then the client refuses new calls; the connections close once the last
   * handler has returned, which for a handler past its timeout happens in the background, with
   * its lease kept. Idempotent.
   */
  @Override
  public void close() {
    if (closing.getAndSet(true)) {
      return;
    }
    // why: first, so that nothing a forwarder still pushes waits on a connection closed below
    for (ListForwarder forwarder : List.copyOf(forwarders)) {
      forwarder.close();
    }
    List<WorkerPool> open = List.copyOf(pools);
    List<Thread> closers = new ArrayList<>();
    for (WorkerPool pool : open) {
      Thread t = new Thread(() -> {
        try {
          pool.close();
        } catch (RuntimeException e) {
          log.warn("closing workers of queue '{}' failed", pool.queue(), e);
        }
      }, "delayq-close-" + pool.queue());
      t.setDaemon(true);
      t.start();
      closers.add(t);
    }
    for (Thread t : closers) {
      try {
        t.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    // why: before the connections close; a handler still running past its timeout keeps its lease
    // but the process no longer counts as a live worker
    heartbeat.close();
    history.close();
    closed.set(true);
    telemetry.close();
    CompletableFuture<?>[] draining = open.stream().map(WorkerPool::finished).toArray(CompletableFuture[]::new);
    CompletableFuture<Void> allDone = CompletableFuture.allOf(draining);
    if (allDone.isDone()) {
      closeConnections();
    } else {
      log.warn("the Redis connections to {} stay open until the handlers still running return", displayUri);
      allDone.whenComplete((v, e) -> closeConnections());
    }
  }

  /**
   * Where schedules are tended (see {@link ScheduleEngine}): two daemon threads, made on first
   * use, that end when idle and are stopped with the client.
   */
  java.util.concurrent.Executor scheduleTender() {
    synchronized (this) {
      if (scheduleTender == null) {
        var pool = new java.util.concurrent.ThreadPoolExecutor(2, 2, 5, TimeUnit.SECONDS,
            new java.util.concurrent.LinkedBlockingQueue<>(), r -> {
              Thread t = new Thread(r, "delayq-schedules");
              t.setDaemon(true);
              return t;
            });
        pool.allowCoreThreadTimeOut(true);
        scheduleTender = pool;
      }
      return scheduleTender;
    }
  }

  private void closeConnections() {
    synchronized (this) {
      if (scheduleTender != null) {
        scheduleTender.shutdownNow();
      }
    }
    leaseKeeper.close();
    linkWatchdog.close();
    wakeBus.close();
    synchronized (this) {
      if (workerConnection != null) {
        workerConnection.close();
      }
    }
    try {
      connector.shutdown();
    } catch (RuntimeException e) {
      log.debug("Redis client shutdown: {}", e.toString());
    }
    resources.shutdown(0, 2, TimeUnit.SECONDS);
  }
}
