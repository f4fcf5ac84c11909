package io.delayq.internal;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import io.netty.util.concurrent.EventExecutor;
import java.net.InetAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps every connection of a client that reaches Redis through Sentinel on the current master.
 *
 * <p>Lettuce asks the Sentinels where the master is each time it (re)connects, but a connection
 * that stays up stays where it is. A failover in which the old master survives ({@code SENTINEL
 * FAILOVER}, a partition that heals) leaves it answering as a master until the Sentinels turn it
 * into a replica, which they do only some seconds later (four times their 2 s publish period at
 * least); whatever is written to it meanwhile is lost then. So once per {@code interval} this asks
 * a Sentinel for the master's address ({@code SENTINEL GET-MASTER-ADDR-BY-NAME}) and drops the
 * channel of every followed connection that is connected anywhere else ({@link
 * LinkWatchdog#dropChannel}); Lettuce reconnects it after its first reconnect delay, asking the
 * Sentinels again, and replays its handshake and pub/sub subscriptions. A Sentinel that fails, or
 * gives no answer within three intervals, is let go; the next tick connects to the first Sentinel
 * of the URL that accepts a connection.
 *
 * <p>All work runs on one executor of the client's {@link ClientResources#eventExecutorGroup()}.
 */
final class SentinelWatch implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SentinelWatch.class);

  private final RedisClient client;
  private final RedisURI uri;
  private final String masterName;
  private final long intervalNanos;
  private final EventExecutor executor;
  private final Map<StatefulConnection<?, ?>, String> followed = new ConcurrentHashMap<>();
  private final ScheduledFuture<?> ticks;
  /** Touched on the executor only. */
  private StatefulRedisSentinelConnection<String, String> sentinel;
  private boolean connecting;
  private CompletableFuture<?> pending;
  private long pendingSince;
  private boolean warnedUnknown;
  private volatile String master;
  private volatile boolean closed;

  /**
   * @param client the client whose {@link RedisURI} names the Sentinels; connections to them are
   *     opened with it
   * @param uri the Sentinel URL (sentinels and master name)
   * @param master {@code host:port} the first connection was opened to, or null
   */
  SentinelWatch(RedisClient client, RedisURI uri, ClientResources resources, java.time.Duration interval, String master) {
    this.client = client;
    this.uri = uri;
    this.masterName = Objects.requireNonNull(uri.getSentinelMasterId(), "sentinel master id");
    this.intervalNanos = interval.toNanos();
    this.master = master;
    this.executor = resources.eventExecutorGroup().next();
    this.ticks = executor.scheduleWithFixedDelay(this::tick, intervalNanos, intervalNanos, TimeUnit.NANOSECONDS);
  }

  /** Moves {@code connection} to the master whenever it is found elsewhere, until it is closed. */
  void follow(String role, StatefulConnection<?, ?> connection) {
    followed.put(connection, role);
  }

  /** {@code host:port} of the master as the Sentinels last said, or as first connected to. */
  String master() {
    return master;
  }

  private void tick() {
    // why: an exception escaping a periodic task cancels all later runs, so none may escape
    try {
      if (closed) {
        return;
      }
      followed.keySet().removeIf(c -> c instanceof RedisChannelHandler<?, ?> h && h.isClosed());
      if (sentinel == null) {
        connect();
        return;
      }
      if (pending != null && !pending.isDone()) {
        if (System.nanoTime() - pendingSince > intervalNanos * 3) {
          log.debug("Sentinel gave no answer within {} ms; asking another", TimeUnit.NANOSECONDS.toMillis(intervalNanos * 3));
          abandonSentinel();
        }
        return;
      }
      pendingSince = System.nanoTime();
      StatefulRedisSentinelConnection<String, String> asked = sentinel;
      pending =
          asked.async().getMasterAddrByName(masterName).toCompletableFuture()
              .whenCompleteAsync((address, error) -> answered(asked, address, error), executor);
    } catch (RuntimeException e) {
      log.warn("Sentinel watch tick failed: {}", e.toString(), e);
    }
  }

  private void connect() {
    if (connecting) {
      return;
    }
    connecting = true;
    client.connectSentinelAsync(StringCodec.UTF8, uri).whenCompleteAsync((opened, error) -> {
      connecting = false;
      if (error != null) {
        log.debug("no Sentinel reachable for master '{}' right now: {}", masterName, error.toString());
        return;
      }
      if (closed) {
        opened.closeAsync();
        return;
      }
      sentinel = opened;
    }, executor);
  }

  private void answered(StatefulRedisSentinelConnection<String, String> asked, SocketAddress address, Throwable error) {
    if (closed || asked != sentinel) {
      return;
    }
    if (error != null) {
      log.debug("asking Sentinel for master '{}' failed: {}", masterName, error.toString());
      abandonSentinel();
      return;
    }
    if (address == null) {
      if (!warnedUnknown) {
        warnedUnknown = true;
        log.warn("the Sentinel no longer knows a master named '{}'; delayq's connections stay where they are", masterName);
      }
      abandonSentinel();
      return;
    }
    warnedUnknown = false;
    String now = LinkWatchdog.hostPort(address);
    String before = master;
    if (!now.equals(before)) {
      log.info("Sentinel names {} as master '{}' (was {}); moving delayq's connections there", now, masterName, before);
      master = now;
    }
    followed.forEach((connection, role) -> {
      if (!connection.isOpen()) {
        return; // Lettuce is reconnecting it, and asks the Sentinels on the way
      }
      String at = LinkWatchdog.remoteAddress(connection);
      if (at != null && !sameAddress(at, now)) {
        log.info("{} connection is on {}, not on master {}; reconnecting it", role, at, now);
        if (!LinkWatchdog.dropChannel(connection)) {
          log.warn("cannot drop the {} connection's link with this Lettuce; it stays on {}", role, at);
        }
      }
    });
  }

  private void abandonSentinel() {
    StatefulRedisSentinelConnection<String, String> old = sentinel;
    sentinel = null;
    pending = null;
    if (old != null) {
      old.closeAsync();
    }
  }

  /** Whether two {@code host:port} texts name the same socket; hosts are compared by address. */
  static boolean sameAddress(String a, String b) {
    if (a.equals(b)) {
      return true;
    }
    int ca = a.lastIndexOf(':');
    int cb = b.lastIndexOf(':');
    if (ca < 0 || cb < 0 || !a.substring(ca + 1).equals(b.substring(cb + 1))) {
      return false;
    }
    try {
      return InetAddress.getByName(a.substring(0, ca)).equals(InetAddress.getByName(b.substring(0, cb)));
    } catch (UnknownHostException e) {
      return false;
    }
  }

  @Override
  public void close() {
    closed = true;
    ticks.cancel(false);
    followed.clear();
    executor.execute(this::abandonSentinel);
  }
}
