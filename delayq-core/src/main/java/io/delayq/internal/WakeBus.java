package io.delayq.internal;

import io.lettuce.core.RedisClient;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers wake-up messages ("an earlier job was scheduled") to the worker pools of this client.
 * One pub/sub connection for all queues, opened with the first pool; Lettuce resubscribes after a
 * reconnect, and the workers' sweep covers any message lost meanwhile.
 */
final class WakeBus implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(WakeBus.class);

  private final RedisClient client;
  private final Map<String, List<WorkerPool>> poolsByChannel = new ConcurrentHashMap<>();
  private StatefulRedisPubSubConnection<byte[], byte[]> connection;

  WakeBus(RedisClient client) {
    this.client = client;
  }

  synchronized void register(String channel, WorkerPool pool) {
    if (connection == null) {
      connection = client.connectPubSub(ByteArrayCodec.INSTANCE);
      connection.addListener(
          new RedisPubSubAdapter<>() {
            @Override
            public void message(byte[] channel, byte[] message) {
              deliver(new String(channel, StandardCharsets.UTF_8), message);
            }
          });
    }
    List<WorkerPool> pools = poolsByChannel.computeIfAbsent(channel, c -> new CopyOnWriteArrayList<>());
    if (pools.isEmpty()) {
      connection.sync().subscribe(Keys.bytes(channel));
    }
    pools.add(pool);
  }

  synchronized void unregister(String channel, WorkerPool pool) {
    List<WorkerPool> pools = poolsByChannel.get(channel);
    if (pools == null || !pools.remove(pool) || !pools.isEmpty() || connection == null) {
      return;
    }
    try {
      connection.async().unsubscribe(Keys.bytes(channel));
    } catch (RuntimeException e) {
      log.debug("unsubscribe from {} failed: {}", channel, e.toString());
    }
  }

  private void deliver(String channel, byte[] message) {
    List<WorkerPool> pools = poolsByChannel.get(channel);
    if (pools == null) {
      return;
    }
    String text = new String(message, StandardCharsets.US_ASCII);
    int colon = text.indexOf(':');
    try {
      int partition = Integer.parseInt(text.substring(0, colon));
      long dueMillis = Long.parseLong(text.substring(colon + 1));
      for (WorkerPool pool : pools) {
        pool.onWake(partition, dueMillis);
      }
    } catch (RuntimeException e) {
      log.debug("ignoring malformed wake message '{}' on {}", text, channel);
    }
  }

  @Override
  public synchronized void close() {
    if (connection != null) {
      connection.close();
      connection = null;
    }
  }
}
