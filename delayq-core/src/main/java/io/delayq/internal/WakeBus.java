package io.delayq.internal;

import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers wake-up messages ("an earlier job was scheduled") to the worker pools and waiting
 * claims of this client. One pub/sub connection for all queues, opened with the first listener.
 * A subscription is retried until Redis confirms it, whether the connection was down when it was
 * asked for or the command failed; Lettuce renews confirmed ones after a reconnect. Meanwhile, and
 * whenever a message is lost, the sweep interval bounds the delay. A channel nobody listens to any
 * more is unsubscribed after a linger, so that short-lived listeners one after another (long polls)
 * do not open a window at each turn in which a wake-up is lost, and so that a process that uses
 * many queue names over time does not keep them all subscribed.
 */
final class WakeBus implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(WakeBus.class);
  private static final long RETRY_MIN_MILLIS = 100;
  private static final long RETRY_MAX_MILLIS = 2_000;
  /** How long a channel nobody listens to stays subscribed; shortened by tests. */
  static volatile long lingerMillis = 30_000;

  private final RedisConnector connector;
  private final ClientResources resources;
  private final Map<String, Channel> channels = new ConcurrentHashMap<>();
  private StatefulRedisPubSubConnection<byte[], byte[]> connection;
  private boolean connecting;
  private long connectRetryMillis = RETRY_MIN_MILLIS;
  private boolean closed;

  /** One channel's listeners and the state of its subscription. */
  private static final class Channel {
    final List<WakeListener> listeners = new CopyOnWriteArrayList<>();
    CompletableFuture<Void> confirmed = new CompletableFuture<>();
    boolean subscribing;
    long retryMillis = RETRY_MIN_MILLIS;
    ScheduledFuture<?> linger;
  }

  /** How long a cluster pub/sub connection may stay down before it is replaced by a new one. */
  private static final long REPLACE_AFTER_NANOS = TimeUnit.SECONDS.toNanos(2);

  private final Consumer<StatefulRedisPubSubConnection<byte[], byte[]>> onConnected;
  private final Consumer<StatefulRedisPubSubConnection<byte[], byte[]>> onReplaced;
  private ScheduledFuture<?> health;
  private long downSinceNanos;

  WakeBus(
      RedisConnector connector,
      ClientResources resources,
      Consumer<StatefulRedisPubSubConnection<byte[], byte[]>> onConnected,
      Consumer<StatefulRedisPubSubConnection<byte[], byte[]>> onReplaced) {
    this.connector = connector;
    this.resources = resources;
    this.onConnected = onConnected;
    this.onReplaced = onReplaced;
  }

  /**
   * Adds a listener; the future completes once Redis has confirmed the subscription, so that a
   * caller who waits for it and then looks at the queue misses no job scheduled in between. It
   * stays incomplete while Redis is away (callers bound their wait; the sweep covers the gap).
   */
  synchronized CompletableFuture<Void> register(String name, WakeListener listener) {
    Channel channel = channels.computeIfAbsent(name, n -> new Channel());
    channel.listeners.add(listener);
    if (channel.linger != null) {
      channel.linger.cancel(false);
      channel.linger = null;
    }
    if (connection == null) {
      connect();
    } else {
      subscribe(name, channel);
    }
    return channel.confirmed;
  }

  /** Channels subscribed and confirmed right now; for tests and metrics. */
  synchronized int subscribedChannels() {
    return (int) channels.values().stream().filter(c -> c.confirmed.isDone()).count();
  }

  private void subscribe(String name, Channel channel) {
    if (channel.subscribing || channel.confirmed.isDone() || closed || connection == null) {
      return;
    }
    channel.subscribing = true;
    connection.async().subscribe(Keys.bytes(name)).whenComplete((ok, error) -> {
      synchronized (this) {
        channel.subscribing = false;
        if (channels.get(name) != channel) {
          return;
        }
        if (error == null) {
          channel.retryMillis = RETRY_MIN_MILLIS;
          channel.confirmed.complete(null);
          return;
        }
        log.debug("subscribing to {} failed, retrying in {} ms: {}", name, channel.retryMillis, error.toString());
        long delay = channel.retryMillis;
        channel.retryMillis = Math.min(RETRY_MAX_MILLIS, channel.retryMillis * 2);
        schedule(() -> {
          synchronized (this) {
            if (channels.get(name) == channel) {
              subscribe(name, channel);
            }
          }
        }, delay);
      }
    });
  }

  /** Opens the connection and subscribes to every registered channel; retries while Redis is away. */
  private void connect() {
    if (connecting || closed) {
      return;
    }
    connecting = true;
    connector
        .connectPubSub()
        .whenComplete(
            (opened, error) -> {
              synchronized (this) {
                connecting = false;
                if (error != null) {
                  log.debug("wake-up channel unavailable, retrying in {} ms: {}", connectRetryMillis, error.toString());
                  long delay = connectRetryMillis;
                  connectRetryMillis = Math.min(RETRY_MAX_MILLIS, connectRetryMillis * 2);
                  schedule(this::retryConnect, delay);
                  return;
                }
                if (closed) {
                  opened.closeAsync();
                  return;
                }
                connectRetryMillis = RETRY_MIN_MILLIS;
                connection = opened;
                onConnected.accept(opened);
                if (health == null && connector.isCluster()) {
                  health = resources.eventExecutorGroup().scheduleWithFixedDelay(this::replaceIfStuck, 1, 1, TimeUnit.SECONDS);
                }
                connection.addListener(
                    new RedisPubSubAdapter<>() {
                      @Override
                      public void message(byte[] channel, byte[] message) {
                        deliver(new String(channel, StandardCharsets.UTF_8), message);
                      }
                    });
                channels.forEach(this::subscribe);
              }
            });
  }

  /**
   * A cluster pub/sub connection whose node died may keep reconnecting to that same node for a
   * long time (seen in the failover test: no move within 10 s). One that has been down for two
   * seconds is replaced by a new connection, which Lettuce opens to a node that is up now, and
   * every channel is subscribed there again.
   */
  private void replaceIfStuck() {
    StatefulRedisPubSubConnection<byte[], byte[]> stuck;
    synchronized (this) {
      if (closed || connection == null || connecting) {
        return;
      }
      if (connection.isOpen()) {
        downSinceNanos = 0;
        return;
      }
      long now = System.nanoTime();
      if (downSinceNanos == 0) {
        downSinceNanos = now;
        return;
      }
      if (now - downSinceNanos < REPLACE_AFTER_NANOS) {
        return;
      }
      stuck = connection;
      connection = null;
      downSinceNanos = 0;
      for (Channel channel : channels.values()) {
        channel.subscribing = false;
        if (channel.confirmed.isDone()) {
          channel.confirmed = new CompletableFuture<>();
        }
      }
      log.info("the wake-up connection has been down for 2 s; opening a new one to a node that is up");
      connect();
    }
    onReplaced.accept(stuck);
    stuck.closeAsync();
  }

  private synchronized void retryConnect() {
    if (connection == null) {
      connect();
    }
  }

  private void schedule(Runnable task, long delayMillis) {
    if (!closed) {
      resources.eventExecutorGroup().schedule(task, delayMillis, TimeUnit.MILLISECONDS);
    }
  }

  /** Removes a listener; the last one to leave a channel unsubscribes it after a linger. */
  synchronized void unregister(String name, WakeListener listener) {
    Channel channel = channels.get(name);
    if (channel == null || !channel.listeners.remove(listener) || !channel.listeners.isEmpty()) {
      return;
    }
    if (channel.linger == null && !closed) {
      channel.linger =
          resources.eventExecutorGroup().schedule(() -> drop(name, channel), lingerMillis, TimeUnit.MILLISECONDS);
    }
  }

  private synchronized void drop(String name, Channel channel) {
    if (channels.get(name) != channel || !channel.listeners.isEmpty()) {
      return;
    }
    channels.remove(name);
    if (connection != null && !closed) {
      connection.async().unsubscribe(Keys.bytes(name));
    }
  }

  private void deliver(String name, byte[] message) {
    Channel channel = channels.get(name);
    if (channel == null) {
      return;
    }
    String text = new String(message, StandardCharsets.US_ASCII);
    int colon = text.indexOf(':');
    try {
      int partition = Integer.parseInt(text.substring(0, colon));
      long dueMillis = Long.parseLong(text.substring(colon + 1));
      for (WakeListener listener : channel.listeners) {
        listener.onWake(partition, dueMillis);
      }
    } catch (RuntimeException e) {
      log.debug("ignoring malformed wake message '{}' on {}", text, name);
    }
  }

  StatefulRedisPubSubConnection<byte[], byte[]> connection() {
    return connection;
  }

  @Override
  public void close() {
    StatefulRedisPubSubConnection<byte[], byte[]> open;
    synchronized (this) {
      closed = true;
      open = connection;
      connection = null;
      if (health != null) {
        health.cancel(false);
      }
    }
    // why: outside the lock; closing waits for the I/O thread, whose callbacks take the lock
    if (open != null) {
      open.close();
    }
  }
}
