package io.delayq.internal;

import io.delayq.JobQueue;
import io.delayq.QueueConfigurationException;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The queues a client knows: their stored partition counts, and a handle per queue. Handles are
 * a few small objects each, whatever the partition count (under a kilobyte until claimed from;
 * see QueueFootprintIT), kept for the {@value #MAX_CACHED_QUEUES} most recently used queues only,
 * so that a process that touches many queue names over time does not grow without end.
 *
 * <p>An evicted handle stays fully usable by whoever holds it (running workers, a pull loop):
 * nothing in a handle depends on its being cached, and two handles of one queue share everything
 * that must be shared through Redis and the client. Making a handle again costs one round trip.
 */
final class QueueRegistry {
  static final int MAX_CACHED_QUEUES = 1024;

  private static final byte[] PARTITIONS_FIELD = Keys.bytes("partitions");

  private final DelayqClient client;
  private final Map<String, QueueHandle> queues =
      Collections.synchronizedMap(
          new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, QueueHandle> eldest) {
              return size() > MAX_CACHED_QUEUES;
            }
          });

  QueueRegistry(DelayqClient client) {
    this.client = client;
  }

  /** The queue {@code name}; {@code partitions} is 0 to use the stored count (1 for a new queue). */
  JobQueue queue(String name, int partitions) {
    Rules.checkQueueName(name);
    QueueHandle existing = queues.get(name);
    if (existing != null) {
      requireSamePartitions(name, existing.partitions(), partitions);
      return existing;
    }
    int stored = loadOrCreateSettings(name, partitions == 0 ? 1 : partitions);
    requireSamePartitions(name, stored, partitions);
    return cache(name, stored);
  }

  /** Queue handles held now; at most {@link #MAX_CACHED_QUEUES}. */
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
  List<String> queueNames() {
    Set<byte[]> members = client.await(client.async().smembers(Keys.bytes(Keys.registry())).toCompletableFuture(), null, null, 0);
    return members.stream().map(m -> new String(m, StandardCharsets.UTF_8)).sorted().toList();
  }

  /**
   * The queue if it has been used before; never creates one, nor writes anything. A queue exists
   * while its settings hash holds a partition count: a delete removes that hash before the name.
   */
  Optional<JobQueue> existingQueue(String name) {
    Rules.checkQueueName(name);
    QueueHandle cached = queues.get(name);
    if (cached != null) {
      return Optional.of(cached);
    }
    byte[] stored = client.await(
        client.async().hget(Keys.bytes(Keys.settings(name)), PARTITIONS_FIELD).toCompletableFuture(), name, null, 0);
    if (stored == null) {
      return Optional.empty();
    }
    return Optional.of(cache(name, parsePartitions(name, stored)));
  }

  /** Drops the handle of a deleted queue, so that its next use starts fresh. */
  void forget(String name) {
    queues.remove(name);
  }

  private QueueHandle cache(String name, int partitions) {
    return queues.computeIfAbsent(name, n -> new QueueHandle(client, n, partitions));
  }

  /** Writes the count unless one is stored, and reads the one in force: one pipelined round trip. */
  private int loadOrCreateSettings(String name, int partitions) {
    byte[] key = Keys.bytes(Keys.settings(name));
    RedisClusterAsyncCommands<byte[], byte[]> redis = client.async();
    // why: sent together on one connection; Redis runs them in order, so the HGET sees the HSETNX
    CompletableFuture<Boolean> created =
        redis.hsetnx(key, PARTITIONS_FIELD, Keys.bytes(Integer.toString(partitions))).toCompletableFuture();
    CompletableFuture<Long> registered = redis.sadd(Keys.bytes(Keys.registry()), Keys.bytes(name)).toCompletableFuture();
    CompletableFuture<byte[]> stored = redis.hget(key, PARTITIONS_FIELD).toCompletableFuture();
    // why: a queue made again under a deleted one's name gets its history written again
    CompletableFuture<Long> undeleted = redis.del(Keys.bytes(Keys.historyDeleted(name))).toCompletableFuture();
    client.await(created, name, null, 0);
    client.await(undeleted, name, null, 0);
    client.await(registered, name, null, 0);
    return parsePartitions(name, client.await(stored, name, null, 0));
  }

  private static int parsePartitions(String name, byte[] stored) {
    try {
      return Integer.parseInt(new String(stored, StandardCharsets.US_ASCII));
    } catch (RuntimeException e) {
      throw new QueueConfigurationException(
          "queue '" + name + "' has an unreadable partition count in " + Keys.settings(name)
              + "; it was not written by delayq. Fix or delete that hash");
    }
  }
}
