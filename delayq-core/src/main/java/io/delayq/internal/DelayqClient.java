package io.delayq.internal;

import io.delayq.DelayqClosedException;
import io.delayq.InvalidRequestException;
import io.delayq.JobQueue;
import io.delayq.QueueConfigurationException;
import io.delayq.RedisUnavailableException;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
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
  private static final Set<String> SCHEMES = Set.of("redis", "rediss");

  private final ClientSettings settings;
  private final String displayUri;
  private final ClientResources resources;
  private final RedisConnector connector;
  private final StatefulConnection<byte[], byte[]> connection;
  private final RedisClusterAsyncCommands<byte[], byte[]> commands;
  private final ServerTime serverTime;
  private final ScriptRunner scripts;
  private StatefulConnection<byte[], byte[]> workerConnection;
  private ScriptRunner workerScripts;
  private long nextWorkerConnectAttempt;
  private final WakeBus wakeBus;
  private final LeaseKeeper leaseKeeper = new LeaseKeeper(Ticker.SYSTEM);
  private final LinkWatchdog linkWatchdog;
  /**
   * Queue handles by name, the most recently used kept. A handle is a few small objects; the
   * bound keeps a process that touches many queue names over time from growing without end.
   */
  private final Map<String, QueueHandle> queues =
      java.util.Collections.synchronizedMap(
          new java.util.LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, QueueHandle> eldest) {
              return size() > MAX_CACHED_QUEUES;
            }
          });
  static final int MAX_CACHED_QUEUES = 1024;
  private final List<WorkerPool> pools = new CopyOnWriteArrayList<>();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final AtomicBoolean closing = new AtomicBoolean();

  public DelayqClient(ClientSettings settings) {
    this.settings = settings;
    List<RedisURI> uris = parse(settings.redisUrl());
    this.displayUri = redact(uris);
    this.resources =
        DefaultClientResources.builder()
            .ioThreadPoolSize(2)
            .computationThreadPoolSize(2)
            // why: after Redis returns, resume within about a second, not Lettuce's 30 s cap
            .reconnectDelay(LinkWatchdog.reconnectDelay())
            .build();
    // why: a path that silently stops forwarding is never noticed by TCP on its own (keepalive
    // probes may be answered by a middlebox); a link that answers no PING within the command
    // timeout is dropped, and Lettuce reconnects it. The timeout, not less: a PING queues behind a
    // large pipelined scheduleAll, and a healthy but busy link must not be dropped.
    this.linkWatchdog = new LinkWatchdog(resources, LinkWatchdog.DEFAULT_INTERVAL, settings.commandTimeout());
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
    linkWatchdog.watch("producer", connection);
    this.serverTime = ServerTime.probe(connection);
    this.scripts = new ScriptRunner(commands, serverTime);
    this.wakeBus = new WakeBus(connector, resources, c -> linkWatchdog.watch("wake-up", c));
    checkEvictionPolicy();
  }

  /**
   * One URL, or several separated by commas for the seed nodes of a cluster. A seed may be given
   * as just {@code host:port}; it then takes scheme, user and password from the first.
   */
  static List<RedisURI> parse(String url) {
    if (url == null || url.isBlank()) {
      throw new InvalidRequestException(
          "redisUrl", "is missing; give one like redis://localhost:6379 or rediss://user:pass@host:6380");
    }
    List<RedisURI> uris = new ArrayList<>();
    String[] parts = url.split(",");
    for (int i = 0; i < parts.length; i++) {
      String part = parts[i].trim();
      if (part.isEmpty()) {
        throw new InvalidRequestException(
            "redisUrl", "has an empty entry between commas; separate seed URLs with single commas");
      }
      if (i > 0 && !part.contains("://")) {
        uris.add(seedLike(uris.get(0), part));
        continue;
      }
      uris.add(parseOne(part));
    }
    return uris;
  }

  private static RedisURI parseOne(String url) {
    int colon = url.indexOf("://");
    String scheme = colon < 0 ? "" : url.substring(0, colon);
    if (!SCHEMES.contains(scheme)) {
      throw new InvalidRequestException(
          "redisUrl",
          "'" + Rules.abbreviate(url.replaceAll("//[^@/]*@", "//***@"))
              + "' must start with redis:// or rediss:// (TLS)");
    }
    try {
      return RedisURI.create(url);
    } catch (IllegalArgumentException e) {
      throw new InvalidRequestException(
          "redisUrl", "cannot be parsed (" + e.getMessage() + "); expected redis://[user:password@]host:port[/db]");
    }
  }

  private static RedisURI seedLike(RedisURI first, String hostAndPort) {
    int colon = hostAndPort.lastIndexOf(':');
    int port;
    try {
      port = colon < 0 ? RedisURI.DEFAULT_REDIS_PORT : Integer.parseInt(hostAndPort.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new InvalidRequestException(
          "redisUrl", "seed '" + Rules.abbreviate(hostAndPort) + "' has no valid port; write host:port or a full URL");
    }
    return RedisURI.builder(first)
        .withHost(colon < 0 ? hostAndPort : hostAndPort.substring(0, colon))
        .withPort(port)
        .build();
  }

  private static String redact(List<RedisURI> uris) {
    StringBuilder text = new StringBuilder();
    for (RedisURI uri : uris) {
      text.append(text.length() == 0 ? "" : ",")
          .append(uri.isSsl() ? "rediss://" : "redis://")
          .append(uri.getHost())
          .append(':')
          .append(uri.getPort());
    }
    return text.toString();
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
        "Redis at " + (connector.isCluster() ? evicting.getKey() : displayUri) + " has maxmemory-policy '" + policy
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
    Rules.checkQueueName(name);
    QueueHandle existing = queues.get(name);
    if (existing != null) {
      requireSamePartitions(name, existing.partitions(), partitions);
      return existing;
    }
    int stored = loadOrCreateSettings(name, partitions == 0 ? 1 : partitions);
    requireSamePartitions(name, stored, partitions);
    return queues.computeIfAbsent(name, n -> new QueueHandle(this, n, stored));
  }

  /** Queue handles held now; bounded by {@link #MAX_CACHED_QUEUES}. */
  int cachedQueues() {
    return queues.size();
  }

  /**
   * The partition count is fixed when a queue is first used. A job is found by a hash of its id
   * modulo the count, and every process caches the count; a process that changed it under the
   * others would strand their jobs in partitions the new count never visits.
   */
  private static void requireSamePartitions(String name, int stored, int requested) {
    if (requested != 0 && requested != stored) {
      throw new QueueConfigurationException(
          "queue '" + name + "' has " + stored + " partition(s); " + requested + " were asked for. The count"
              + " is fixed when a queue is first used, because jobs are found by a hash of their id modulo the"
              + " count and every process using the queue relies on it. To move to " + requested + " partitions:"
              + " create a queue with a new name and " + requested + " partitions, point producers at it, and"
              + " keep workers on '" + name + "' until its stats show no job; or open '" + name + "' without a"
              + " partition count to keep " + stored);
    }
  }

  /** Names of every queue ever used on this Redis, sorted. */
  public List<String> queueNames() {
    checkOpen("queueNames()");
    Set<byte[]> members = await(commands.smembers(Keys.bytes(Keys.registry())).toCompletableFuture(), null, null, 0);
    return members.stream().map(m -> new String(m, StandardCharsets.UTF_8)).sorted().toList();
  }

  /** The queue if it has been used before; never creates one. */
  public Optional<JobQueue> existingQueue(String name) {
    checkOpen("existingQueue(" + name + ")");
    Rules.checkQueueName(name);
    QueueHandle cached = queues.get(name);
    if (cached != null) {
      return Optional.of(cached);
    }
    Boolean known =
        await(commands.sismember(Keys.bytes(Keys.registry()), Keys.bytes(name)).toCompletableFuture(), name, null, 0);
    return Boolean.TRUE.equals(known) ? Optional.of(queue(name, 0)) : Optional.empty();
  }

  private int loadOrCreateSettings(String name, int partitions) {
    byte[] key = Keys.bytes(Keys.settings(name));
    byte[] field = Keys.bytes("partitions");
    RedisClusterAsyncCommands<byte[], byte[]> redis = async();
    await(redis.hsetnx(key, field, Keys.bytes(Integer.toString(partitions))).toCompletableFuture(), name, null, 0);
    await(redis.sadd(Keys.bytes(Keys.registry()), Keys.bytes(name)).toCompletableFuture(), name, null, 0);
    byte[] stored = await(redis.hget(key, field).toCompletableFuture(), name, null, 0);
    try {
      return Integer.parseInt(new String(stored, StandardCharsets.US_ASCII));
    } catch (RuntimeException e) {
      throw new QueueConfigurationException(
          "queue '" + name + "' has an unreadable partition count in " + Keys.settings(name)
              + "; it was not written by delayq. Fix or delete that hash");
    }
  }

  void checkOpen(String what) {
    if (closed.get()) {
      throw new DelayqClosedException(what);
    }
  }

  ClientSettings settings() {
    return settings;
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
   * The connection workers claim and ack on, opened with the first workers. Separate from the one
   * producers use so that a large pipelined {@code scheduleAll} never queues ahead of a claim.
   */
  synchronized ScriptRunner workerScripts() {
    if (workerScripts == null) {
      long now = System.nanoTime();
      if (now - nextWorkerConnectAttempt < 0) {
        return scripts;
      }
      try {
        workerConnection = connector.connect();
        linkWatchdog.watch("worker", workerConnection);
        workerScripts = new ScriptRunner(RedisConnector.commands(workerConnection), serverTime);
      } catch (RuntimeException e) {
        // why: Redis may be away right now; until the worker connection opens (tried again each
        // second) this call shares the main one
        nextWorkerConnectAttempt = now + TimeUnit.SECONDS.toNanos(1);
        log.debug("no separate worker connection to {} yet: {}", displayUri, e.toString());
        return scripts;
      }
    }
    return workerScripts;
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
  }

  void unregister(WorkerPool pool) {
    pools.remove(pool);
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
    closed.set(true);
    CompletableFuture<?>[] draining = open.stream().map(WorkerPool::finished).toArray(CompletableFuture[]::new);
    CompletableFuture<Void> allDone = CompletableFuture.allOf(draining);
    if (allDone.isDone()) {
      closeConnections();
    } else {
      log.warn("the Redis connections to {} stay open until the handlers still running return", displayUri);
      allDone.whenComplete((v, e) -> closeConnections());
    }
  }

  private void closeConnections() {
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
