package io.delayq.internal;

import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import io.lettuce.core.resource.ClientResources;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers wake-up messages ("an earlier job was scheduled") to the worker pools of this client.
 * One pub/sub connection for all queues, opened with the first pool. Lettuce resubscribes after a
 * reconnect; if Redis is away when the first pool starts, connecting is retried in the background.
 * Meanwhile, and whenever a message is lost, the workers' sweep interval bounds the delay.
 */
final class WakeBus implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(WakeBus.class);
  private static final long RETRY_SECONDS = 2;

  private final RedisConnector connector;
  private final ClientResources resources;
  private final Map<String, List<WakeListener>> poolsByChannel = new ConcurrentHashMap<>();
  /** Channels subscribed (or to subscribe once connected), each with Redis's confirmation. */
  private final Map<String, CompletableFuture<Void>> subscriptions = new ConcurrentHashMap<>();
  private StatefulRedisPubSubConnection<byte[], byte[]> connection;
  private boolean connecting;
  private boolean closed;

  WakeBus(RedisConnector connector, ClientResources resources) {
    this.connector = connector;
    this.resources = resources;
  }

  /**
   * Adds a listener; the future completes once Redis has confirmed the subscription, so that a
   * caller who waits for it and then looks at the queue misses no job scheduled in between. It
   * stays incomplete while Redis is away (callers bound their wait; the sweep covers the gap).
   */
  synchronized CompletableFuture<Void> register(String channel, WakeListener pool) {
    poolsByChannel.computeIfAbsent(channel, c -> new CopyOnWriteArrayList<>()).add(pool);
    CompletableFuture<Void> subscribed = subscriptions.get(channel);
    if (subscribed == null) {
      subscribed = new CompletableFuture<>();
      subscriptions.put(channel, subscribed);
      if (connection != null) {
        subscribe(channel, subscribed);
      }
    }
    if (connection == null) {
      connect();
    }
    return subscribed;
  }

  private void subscribe(String channel, CompletableFuture<Void> subscribed) {
    connection.async().subscribe(Keys.bytes(channel)).whenComplete((ok, error) -> {
      if (error == null) {
        subscribed.complete(null);
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
                  log.debug("wake-up channel unavailable, retrying in {} s: {}", RETRY_SECONDS, error.toString());
                  if (!closed) {
                    resources.eventExecutorGroup().schedule(this::retry, RETRY_SECONDS, TimeUnit.SECONDS);
                  }
                  return;
                }
                if (closed) {
                  opened.closeAsync();
                  return;
                }
                connection = opened;
                connection.addListener(
                    new RedisPubSubAdapter<>() {
                      @Override
                      public void message(byte[] channel, byte[] message) {
                        deliver(new String(channel, StandardCharsets.UTF_8), message);
                      }
                    });
                subscriptions.forEach(this::subscribe);
              }
            });
  }

  private synchronized void retry() {
    if (connection == null) {
      connect();
    }
  }

  /**
   * Removes a listener. The last one to leave a channel unsubscribes, unless it asks to keep the
   * subscription: short-lived listeners (waiting claims, one after another) would otherwise open a
   * window at each turn in which a wake-up message is lost.
   */
  synchronized void unregister(String channel, WakeListener pool, boolean keepSubscription) {
    List<WakeListener> pools = poolsByChannel.get(channel);
    if (pools == null || !pools.remove(pool) || !pools.isEmpty() || keepSubscription) {
      return;
    }
    subscriptions.remove(channel);
    if (connection != null) {
      connection.async().unsubscribe(Keys.bytes(channel));
    }
  }

  private void deliver(String channel, byte[] message) {
    List<WakeListener> pools = poolsByChannel.get(channel);
    if (pools == null) {
      return;
    }
    String text = new String(message, StandardCharsets.US_ASCII);
    int colon = text.indexOf(':');
    try {
      int partition = Integer.parseInt(text.substring(0, colon));
      long dueMillis = Long.parseLong(text.substring(colon + 1));
      for (WakeListener pool : pools) {
        pool.onWake(partition, dueMillis);
      }
    } catch (RuntimeException e) {
      log.debug("ignoring malformed wake message '{}' on {}", text, channel);
    }
  }

  @Override
  public synchronized void close() {
    closed = true;
    if (connection != null) {
      connection.close();
      connection = null;
    }
  }
}
