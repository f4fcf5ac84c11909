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
import java.util.function.Function;
import java.util.Arrays;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers wake-up messages ("an earlier job was scheduled") to the worker pools and waiting
 * claims of this client. One pub/sub connection for all queues, opened with the first listener.
 * A subscription is retried until Redis confirms it, whether the connection was down when it was
 * asked for or the command failed; Lettuce renews confirmed ones after a reconnect, and each
 * confirmation, first or renewed, makes the listeners look at their queue at once, since what was
 * announced while the subscription was away reached nobody. Whenever a message is lost otherwise,
 * the sweep interval bounds the delay. A channel nobody listens to any
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

  private static final long PROBE_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(3);

  private final Consumer<StatefulRedisPubSubConnection<byte[], byte[]>> onConnected;
  private final Consumer<StatefulRedisPubSubConnection<byte[], byte[]>> onReplaced;
  private final Function<byte[], CompletableFuture<?>> publishProbe;
  private final byte[] probeChannel = Keys.bytes(Keys.wakeProbeChannel(UUID.randomUUID().toString()));
  private ScheduledFuture<?> health;
  private long probeSentAt;
  private volatile long probeHeardAt;

  WakeBus(
      RedisConnector connector,
      ClientResources resources,
      Consumer<StatefulRedisPubSubConnection<byte[], byte[]>> onConnected,
      Consumer<StatefulRedisPubSubConnection<byte[], byte[]>> onReplaced,
      Function<byte[], CompletableFuture<?>> publishProbe) {
    this.connector = connector;
    this.resources = resources;
    this.onConnected = onConnected;
    this.onReplaced = onReplaced;
    this.publishProbe = publishProbe;
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
                DelayqClient.nameConnection(opened, "delayq-wakeup");
                opened.async().subscribe(probeChannel);
                if (health == null) {
                  health = resources.eventExecutorGroup().scheduleWithFixedDelay(this::checkDelivery, 1, 1, TimeUnit.SECONDS);
                }
                connection.addListener(
                    new RedisPubSubAdapter<>() {
                      @Override
                      public void message(byte[] channel, byte[] message) {
                        deliver(new String(channel, StandardCharsets.UTF_8), message);
                      }

                      // why: also called when Lettuce renews a subscription after a reconnect;
                      // the wake messages of the gap are lost, so listeners look again now
                      @Override
                      public void subscribed(byte[] channel, long count) {
                        Channel subscribed = channels.get(new String(channel, StandardCharsets.UTF_8));
                        if (subscribed != null) {
                          subscribed.listeners.forEach(WakeListener::onSubscribed);
                        }
                      }
                    });
                channels.forEach(this::subscribe);
              }
            });
  }

  /**
   * Proves the subscription path end to end: once a second, while any channel is wanted, a probe
   * is published on this client's own probe channel, and one not heard back within three seconds
   * means the wake-up connection is not delivering (its node died and Lettuce keeps reconnecting
   * to it, as seen in the cluster failover test, or a subscription was silently lost). The
   * connection is then replaced by a new one, which Lettuce opens to a node that is up now, and
   * every channel is subscribed there again. Meanwhile the sweep bounds every delay.
   */
  private void checkDelivery() {
    StatefulRedisPubSubConnection<byte[], byte[]> stuck;
    synchronized (this) {
      if (closed || connection == null || connecting || channels.isEmpty()) {
        probeSentAt = 0;
        return;
      }
      long now = System.nanoTime();
      boolean outstanding = probeSentAt != 0 && probeHeardAt - probeSentAt < 0;
      if (!outstanding) {
        probeSentAt = now;
        publishProbe.apply(probeChannel);
        return;
      }
      if (now - probeSentAt < PROBE_TIMEOUT_NANOS) {
        return;
      }
      stuck = connection;
      connection = null;
      probeSentAt = 0;
      for (Channel channel : channels.values()) {
        channel.subscribing = false;
        if (channel.confirmed.isDone()) {
          channel.confirmed = new CompletableFuture<>();
        }
      }
      log.warn("wake-up messages stopped arriving (a probe went unanswered for 3 s); opening a new"
          + " wake-up connection. Until it is up, workers find new jobs by their sweep");
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
    if (Arrays.equals(Keys.bytes(name), probeChannel)) {
      probeHeardAt = System.nanoTime();
      return;
    }
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
