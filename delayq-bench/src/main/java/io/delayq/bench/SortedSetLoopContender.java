package io.delayq.bench;

import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The sorted-set loop many teams hand-roll: one sorted set, score = due time in ms, member = id and
 * payload. Each consumer thread runs a Lua script that takes the first due member(s) and removes
 * them, and sleeps 100 ms when there is none. "Now" is the consumer's own {@link
 * System#currentTimeMillis()}, as those loops do. The job is removed when taken: no lease, no ack,
 * so a consumer that dies mid-job loses it (at-most-once).
 *
 * <p>With a batch of 1 this is the textbook loop ({@code ZRANGEBYSCORE key -inf now LIMIT 0 1},
 * then {@code ZREM}); with 100 it is its batched variant. Enqueue is {@code ZADD} per job, or
 * pipelined {@code ZADD}s (Lettuce async with auto-flush off) in bulk.
 */
final class SortedSetLoopContender implements Contender {
  static final String NAME = "sorted-set loop";
  static final String BATCHED_NAME = "sorted-set loop, batched";
  static final int BATCH = 100;

  /** Returns member, score pairs of the due members it removed; an empty array when none is due. */
  static final String CLAIM_SCRIPT = """
      local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[2]))
      if #due == 0 then
        return due
      end
      local members = {}
      for i = 1, #due, 2 do
        members[#members + 1] = due[i]
      end
      redis.call('ZREM', KEYS[1], unpack(members))
      return due
      """;

  private static final long IDLE_SLEEP_MILLIS = 100;
  private static final Duration BULK_TIMEOUT = Duration.ofMinutes(2);

  private final String name;
  private final String key;
  private final int batch;
  private final RedisClient client;
  private final StatefulRedisConnection<String, String> producer;
  /** Pipelining connections for bulk loads, one per loading thread at a time. */
  private final Queue<StatefulRedisConnection<String, String>> bulkConnections = new ConcurrentLinkedQueue<>();
  private final Queue<StatefulRedisConnection<String, String>> allConnections = new ConcurrentLinkedQueue<>();
  private final String claimSha;

  private SortedSetLoopContender(String name, String redisUri, String key, int batch) {
    this.name = name;
    this.key = key;
    this.batch = batch;
    this.client = RedisClient.create(redisUri);
    this.producer = connect();
    this.claimSha = producer.sync().scriptLoad(CLAIM_SCRIPT);
  }

  /** The textbook loop (one job per call) when {@code batch} is 1, else its batched variant. */
  static Factory factory(int batch) {
    String name = batch == 1 ? NAME : BATCHED_NAME;
    return new Factory() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public Contender open(String redisUri, String queue) {
        return new SortedSetLoopContender(name, redisUri, "loop:" + queue, batch);
      }
    };
  }

  private StatefulRedisConnection<String, String> connect() {
    StatefulRedisConnection<String, String> connection = client.connect();
    allConnections.add(connection);
    return connection;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public void enqueue(Job job) {
    producer.sync().zadd(key, job.dueMillis(), member(job));
  }

  @Override
  public void enqueueBulk(List<Job> jobs) {
    StatefulRedisConnection<String, String> connection = bulkConnections.poll();
    if (connection == null) {
      connection = connect();
      connection.setAutoFlushCommands(false);
    }
    try {
      RedisAsyncCommands<String, String> async = connection.async();
      List<RedisFuture<Long>> futures = new ArrayList<>(jobs.size());
      for (Job job : jobs) {
        futures.add(async.zadd(key, job.dueMillis(), member(job)));
      }
      connection.flushCommands();
      if (!LettuceFutures.awaitAll(BULK_TIMEOUT, futures.toArray(new RedisFuture<?>[0]))) {
        throw new IllegalStateException("pipelined ZADDs not answered within " + BULK_TIMEOUT);
      }
    } finally {
      bulkConnections.add(connection);
    }
  }

  private static String member(Job job) {
    return job.index() + ":" + Job.PAYLOAD_TEXT;
  }

  @Override
  public Running startWorkers(int threads, DeliveryHandler handler) {
    List<Thread> consumers = new ArrayList<>(threads);
    AtomicBoolean running = new AtomicBoolean(true);
    for (int i = 0; i < threads; i++) {
      // why: each consumer has its own connection, as separate loop processes or threads would
      StatefulRedisConnection<String, String> connection = connect();
      Thread t = new Thread(() -> consume(connection.sync(), handler, running), name + "-consumer-" + i);
      t.setDaemon(true);
      consumers.add(t);
      t.start();
    }
    return () -> {
      running.set(false);
      Threads.joinAll(consumers);
    };
  }

  private void consume(RedisCommands<String, String> redis, DeliveryHandler handler, AtomicBoolean running) {
    String[] keys = {key};
    String limit = Integer.toString(batch);
    while (running.get()) {
      List<Object> taken = redis.evalsha(
          claimSha, ScriptOutputType.MULTI, keys, Long.toString(System.currentTimeMillis()), limit);
      long start = BenchClock.nowMicros();
      if (taken.isEmpty()) {
        Threads.sleep(IDLE_SLEEP_MILLIS);
        continue;
      }
      for (int i = 0; i < taken.size(); i += 2) {
        String member = (String) taken.get(i);
        long dueMillis = (long) Double.parseDouble((String) taken.get(i + 1));
        int index = Integer.parseInt(member, 0, member.indexOf(':'), 10);
        // why: jobs of one batch are handled one after another, so each starts when the previous ended
        handler.delivered(index, dueMillis * 1_000, i == 0 ? start : BenchClock.nowMicros());
      }
    }
  }

  @Override
  public long pending() {
    return producer.sync().zcard(key);
  }

  @Override
  public void close() {
    allConnections.forEach(StatefulRedisConnection::close);
    client.shutdown(0, 2, TimeUnit.SECONDS);
  }
}
