package io.delayq.internal;

import io.lettuce.core.CommandListenerWriter;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisChannelWriter;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandExpiryWriter;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.DefaultEndpoint;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import io.netty.util.concurrent.EventExecutor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Notices a silently dead link to Redis and makes Lettuce reconnect it.
 *
 * <p>A path that stops forwarding without closing (a NAT entry that expired, a proxy or load
 * balancer that black-holes) is invisible to Lettuce: the channel stays active, commands are
 * written and never answered, and with Lettuce's command timeouts off nothing ever fails. TCP
 * keepalive does not help either when the peer's kernel (a proxy's) still ACKs. So every {@code
 * interval} this sends a {@code PING} on each watched link that has none outstanding; a {@code
 * PING} that has no answer after {@code probeTimeout} means the link is dead, and its channel is
 * dropped so that Lettuce's own {@code ConnectionWatchdog} reconnects it (pub/sub connections
 * resubscribe on the way). A cluster connection is watched as its default link plus one link per
 * master with slots, and only the link that stalled is dropped.
 *
 * <p>Commands in flight on a dropped link fail at once ("Connection disconnected", with {@link
 * io.lettuce.core.ClientOptions.DisconnectedBehavior#REJECT_COMMANDS}) instead of never: their
 * effect on Redis is unknown, as after any lost connection. A {@code PING} queues behind the
 * commands sent before it, so a connection whose commands may legitimately take longer than
 * {@code probeTimeout} in Redis (a {@code WAIT} with a longer timeout, a blocking pop) must not be
 * watched by this watchdog, or only by one with a longer timeout. Connections inside {@code
 * MULTI} are not probed (the {@code PING} would join the transaction).
 *
 * <p>All work runs on one executor of the client's {@link ClientResources#eventExecutorGroup()};
 * no thread of its own. Thread-safe.
 */
final class LinkWatchdog {
  private static final Logger log = LoggerFactory.getLogger(LinkWatchdog.class);

  static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(1);
  static final Duration DEFAULT_PROBE_TIMEOUT = Duration.ofSeconds(2);

  private static final Delay RECONNECT_DELAY = new CappedDoublingDelay(50, 1_000);

  private final EventExecutor executor;
  private final Duration interval;
  private final Duration probeTimeout;
  private final Map<StatefulConnection<byte[], byte[]>, Watched> watched = new ConcurrentHashMap<>();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final ScheduledFuture<?> ticks;

  LinkWatchdog(ClientResources resources, Duration interval, Duration probeTimeout) {
    Objects.requireNonNull(resources, "resources");
    if (interval == null || interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("interval must be positive, not " + interval);
    }
    if (probeTimeout == null || probeTimeout.isNegative() || probeTimeout.isZero()) {
      throw new IllegalArgumentException("probeTimeout must be positive, not " + probeTimeout);
    }
    this.interval = interval;
    this.probeTimeout = probeTimeout;
    // why: one executor for every tick, answer and expiry, so the links' state needs no locks
    this.executor = resources.eventExecutorGroup().next();
    long nanos = interval.toNanos();
    this.ticks = executor.scheduleWithFixedDelay(this::tick, nanos, nanos, TimeUnit.NANOSECONDS);
  }

  /**
   * The reconnect backoff to give {@code DefaultClientResources.builder().reconnectDelay(...)}:
   * 50 ms, doubling with each failed attempt, at most 1 s. Lettuce's default reaches 30 s, so a
   * client could wait that long after Redis is back; with this one the next attempt comes within
   * about a second. Stateless, as Lettuce requires of a shared delay.
   */
  static Delay reconnectDelay() {
    return RECONNECT_DELAY;
  }

  /**
   * Watches {@code connection} (standalone, cluster or pub/sub) until {@link #unwatch} or {@link
   * #close}; {@code role} names it in the log ("producer", "worker", "pub/sub"). Watching it again
   * replaces the role.
   */
  void watch(String role, StatefulConnection<byte[], byte[]> connection) {
    Objects.requireNonNull(role, "role");
    Objects.requireNonNull(connection, "connection");
    if (closed.get()) {
      throw new IllegalStateException("LinkWatchdog is closed");
    }
    watched.put(connection, new Watched(role, connection));
  }

  /** Stops watching {@code connection}; a probe still outstanding on it is forgotten. */
  void unwatch(StatefulConnection<byte[], byte[]> connection) {
    watched.remove(connection);
  }

  /** Stops watching everything. Idempotent; the watched connections are left open. */
  void close() {
    if (closed.compareAndSet(false, true)) {
      ticks.cancel(false);
      watched.clear();
    }
  }

  private void tick() {
    // why: an exception escaping a periodic task cancels all later runs, so none may escape
    try {
      if (closed.get()) {
        return;
      }
      for (Watched w : watched.values()) {
        w.refreshClusterLinks();
        probe(w.main);
        for (Link link : w.nodes.values()) {
          probe(link);
        }
      }
    } catch (RuntimeException e) {
      log.warn("link watchdog tick failed; next one in {}: {}", seconds(interval), e.toString(), e);
    }
  }

  private void probe(Link link) {
    if (link.probe != null) {
      return; // its expiry check decides
    }
    StatefulConnection<byte[], byte[]> connection = link.connection;
    // A link Lettuce already knows to be down is being reconnected by Lettuce; nothing to add.
    if (!connection.isOpen()) {
      return;
    }
    if (connection instanceof StatefulRedisConnection<byte[], byte[]> c && c.isMulti()) {
      return;
    }
    AsyncCommand<byte[], byte[], String> ping =
        new AsyncCommand<>(new Command<>(CommandType.PING, new StatusOutput<>(ByteArrayCodec.INSTANCE)));
    link.probe = ping;
    try {
      connection.dispatch(ping);
      // Any answer, an error too, shows the link carries traffic; a failure to send (connection
      // closed, disconnected) is Lettuce's to handle.
      ping.whenCompleteAsync((value, error) -> {
        if (link.probe == ping) {
          link.probe = null;
        }
      }, executor);
      executor.schedule(() -> expire(link, ping), probeTimeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (RuntimeException e) {
      link.probe = null;
      log.debug("cannot probe {} connection: {}", link.role, e.toString());
    }
  }

  private void expire(Link link, CompletableFuture<String> ping) {
    if (link.probe != ping) {
      return; // answered in time
    }
    link.probe = null;
    if (ping.isDone() || closed.get() || watched.get(link.owner.connection) != link.owner) {
      return;
    }
    if (!link.connection.isOpen()) {
      return; // Lettuce noticed by itself meanwhile
    }
    log.warn("no answer from Redis at {} on {} connection within {}; reconnecting",
        link.address(), link.role, seconds(probeTimeout));
    if (!dropChannel(link.connection)) {
      log.warn("cannot drop the {} connection's link with this Lettuce ({}); it stays as it is",
          link.role, link.connection.getClass().getName());
    }
  }

  /**
   * Drops the connection's channel (for a cluster connection, its default link's) so that Lettuce
   * reconnects it; also used to move a connection to a new master ({@link SentinelWatch}).
   *
   * @return false if this Lettuce offers no way to do that for this kind of connection
   */
  static boolean dropChannel(StatefulConnection<?, ?> connection) {
    // why: DefaultEndpoint.disconnect() is the public "drop the channel" of a connection's
    // endpoint, the one Lettuce itself calls to retire a stale cluster node link. It closes only
    // the Netty channel; the endpoint stays open, so the ConnectionWatchdog sees an unintended
    // channelInactive and reconnects with the configured reconnect delay, and activation
    // replays the handshake and the pub/sub subscriptions, as after any network error.
    // close() would disarm that watchdog for good; StatefulConnection.reset() (gone in Lettuce 7)
    // only cancels commands and keeps the dead channel; TCP keepalive or TCP_USER_TIMEOUT never
    // fire while a proxy's kernel ACKs; CLIENT KILL needs a working path to the same server.
    RedisChannelWriter writer = unwrap(((RedisChannelHandler<?, ?>) connection).getChannelWriter());
    if (writer instanceof DefaultEndpoint endpoint) {
      endpoint.disconnect();
      return true;
    }
    Method disconnectDefault = method(writer, "disconnectDefaultEndpoint");
    if (disconnectDefault == null) {
      return false;
    }
    try {
      // why: a cluster connection's (and a cluster pub/sub connection's) default link sits
      // behind ClusterDistributionChannelWriter, whose public disconnectDefaultEndpoint() (which
      // Lettuce calls when the default node left the cluster) does the same disconnect() on it.
      // The class is package-private, hence the reflective call.
      disconnectDefault.invoke(writer);
      return true;
    } catch (ReflectiveOperationException | RuntimeException e) {
      log.debug("disconnectDefaultEndpoint failed: {}", e.toString());
      return false;
    }
  }

  /** Through the writers Lettuce stacks on an endpoint (command listeners, command timeouts). */
  private static RedisChannelWriter unwrap(RedisChannelWriter writer) {
    for (int depth = 0; depth < 8; depth++) {
      if (writer instanceof CommandListenerWriter w) {
        writer = w.getDelegate();
      } else if (writer instanceof CommandExpiryWriter w) {
        writer = w.getDelegate();
      } else {
        break;
      }
    }
    return writer;
  }

  private static Method method(Object target, String name) {
    try {
      Method method = target.getClass().getMethod(name);
      method.setAccessible(true);
      return method;
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }

  /**
   * {@code host:port} the endpoint's channel is connected to, or null. Only for the log line:
   * Lettuce offers no remote address of a connection, so this reads the channel field that
   * DefaultEndpoint has had since Lettuce 5 (and, for a cluster's default link, the writer's
   * default endpoint); any failure leaves the address unknown and changes nothing else.
   */
  static String remoteAddress(StatefulConnection<?, ?> connection) {
    try {
      RedisChannelWriter writer = unwrap(((RedisChannelHandler<?, ?>) connection).getChannelWriter());
      if (!(writer instanceof DefaultEndpoint)) {
        Field defaultWriter = writer.getClass().getDeclaredField("defaultWriter");
        defaultWriter.setAccessible(true);
        writer = unwrap((RedisChannelWriter) defaultWriter.get(writer));
      }
      Field channelField = DefaultEndpoint.class.getDeclaredField("channel");
      channelField.setAccessible(true);
      Object channel = channelField.get(writer);
      if (channel instanceof io.netty.channel.Channel c) {
        return hostPort(c.remoteAddress());
      }
    } catch (ReflectiveOperationException | RuntimeException e) {
      log.trace("remote address unknown: {}", e.toString());
    }
    return null;
  }

  static String hostPort(SocketAddress address) {
    if (address instanceof InetSocketAddress a) {
      return a.getHostString() + ":" + a.getPort();
    }
    return address == null ? null : address.toString();
  }

  private static String seconds(Duration d) {
    long millis = d.toMillis();
    return millis % 1000 == 0 ? (millis / 1000) + " s" : millis + " ms";
  }

  /** A watched connection: its own link, and for a cluster one more link per master. */
  private final class Watched {
    final String role;
    final StatefulConnection<byte[], byte[]> connection;
    final Link main;
    /** By {@code host:port}; touched on the executor only. */
    final Map<String, Link> nodes = new HashMap<>();

    Watched(String role, StatefulConnection<byte[], byte[]> connection) {
      this.role = role;
      this.connection = connection;
      this.main = new Link(this, role, connection, null);
    }

    /**
     * Picks up the cluster's masters (the links slot-routed commands take) and forgets links to
     * nodes that are no master any more. A link still opening is probed from the next tick on.
     */
    void refreshClusterLinks() {
      if (!(connection instanceof StatefulRedisClusterConnection<byte[], byte[]> cluster) || !cluster.isOpen()) {
        return;
      }
      Set<String> current = new HashSet<>();
      List<RedisClusterNode> masters = new ArrayList<>();
      for (RedisClusterNode node : cluster.getPartitions()) {
        if (node.is(RedisClusterNode.NodeFlag.UPSTREAM) && !node.is(RedisClusterNode.NodeFlag.FAIL)
            && !node.hasNoSlots()) {
          masters.add(node);
        }
      }
      for (RedisClusterNode node : masters) {
        String host = node.getUri().getHost();
        int port = node.getUri().getPort();
        String key = host + ":" + port;
        current.add(key);
        CompletableFuture<StatefulRedisConnection<byte[], byte[]>> link;
        try {
          // why: host and port, WRITE intent: the very connection Lettuce routes a slot's commands to
          link = cluster.getConnectionAsync(host, port);
        } catch (RuntimeException e) {
          log.debug("no link to cluster node {}: {}", key, e.toString());
          continue;
        }
        if (!link.isDone() || link.isCompletedExceptionally()) {
          continue;
        }
        StatefulRedisConnection<byte[], byte[]> nodeConnection = link.join();
        Link known = nodes.get(key);
        if (known == null || known.connection != nodeConnection) {
          nodes.put(key, new Link(this, role, nodeConnection, key));
        }
      }
      nodes.keySet().retainAll(current);
    }
  }

  /** One channel to one Redis server, and the probe outstanding on it. */
  private static final class Link {
    final Watched owner;
    final String role;
    final StatefulConnection<byte[], byte[]> connection;
    /** Known for a cluster node's link; else read from the channel when needed. */
    final String knownAddress;
    /** The PING awaiting its answer, or null; touched on the executor only. */
    CompletableFuture<String> probe;

    Link(Watched owner, String role, StatefulConnection<byte[], byte[]> connection, String knownAddress) {
      this.owner = owner;
      this.role = role;
      this.connection = connection;
      this.knownAddress = knownAddress;
    }

    String address() {
      if (knownAddress != null) {
        return knownAddress;
      }
      String address = remoteAddress(connection);
      return address != null ? address : "an unknown address";
    }
  }

  /** {@code base * 2^(attempt-1)} ms, at most {@code cap} ms. */
  private static final class CappedDoublingDelay extends Delay {
    private final long baseMillis;
    private final long capMillis;

    CappedDoublingDelay(long baseMillis, long capMillis) {
      this.baseMillis = baseMillis;
      this.capMillis = capMillis;
    }

    @Override
    public Duration createDelay(long attempt) {
      long shift = Math.max(0, Math.min(attempt - 1, 20));
      return Duration.ofMillis(Math.min(capMillis, baseMillis << shift));
    }
  }
}
