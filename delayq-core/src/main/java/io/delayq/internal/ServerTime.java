package io.delayq.internal;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where scripts get "now". Redis 5 and later let a script call {@code TIME}; some servers that
 * speak the protocol do not (a Redis 6 with {@code lua-replicate-commands no} refuses writes after
 * it; others answer 0). The client asks once at connect; on such a server each script call is
 * preceded by a {@code TIME} read from the node that owns the script's keys and passed in. That
 * reading is taken before the script runs, so it is at most the script's own time: a job can be
 * handed out a round trip late, never early.
 */
final class ServerTime {
  private static final Logger log = LoggerFactory.getLogger(ServerTime.class);
  /** The first ARGV of a script that reads TIME itself. */
  static final byte[] IN_SCRIPT = new byte[0];
  private static final String PROBE =
      "local t = redis.call('TIME') redis.call('SET', KEYS[1], t[1], 'PX', 60000) return t";

  private final StatefulConnection<byte[], byte[]> connection;
  private final boolean passed;
  /** A simulated clock every script reads instead, for tests that fast-forward time; see {@link SimulatedTime}. */
  private volatile java.util.function.LongSupplier simulatedMicros;

  private ServerTime(StatefulConnection<byte[], byte[]> connection, boolean passed) {
    this.connection = connection;
    this.passed = passed;
  }

  /** Asks the server whether a script may read TIME and then write. */
  static ServerTime probe(StatefulConnection<byte[], byte[]> connection) {
    var redis = RedisConnector.commands(connection);
    byte[][] keys = {Keys.bytes(Keys.timeProbe())};
    String problem;
    try {
      List<Object> inScript =
          redis.<List<Object>>eval(PROBE.getBytes(StandardCharsets.UTF_8), ScriptOutputType.MULTI, keys)
              .toCompletableFuture()
              .get(10, TimeUnit.SECONDS);
      long scriptSeconds = Long.parseLong(text(inScript.get(0)));
      long serverSeconds =
          Long.parseLong(text(redis.time().toCompletableFuture().get(10, TimeUnit.SECONDS).get(0)));
      if (Math.abs(scriptSeconds - serverSeconds) <= 60) {
        return new ServerTime(connection, false);
      }
      problem = "TIME inside a script reads " + scriptSeconds + " s, the server's TIME " + serverSeconds + " s";
    } catch (Exception e) {
      Throwable cause = Errors.unwrap(e);
      if (cause instanceof TimeoutException || cause instanceof InterruptedException) {
        // why: a server too slow to answer now says nothing about TIME; assume the usual
        return new ServerTime(connection, false);
      }
      problem = "a script that reads TIME and then writes is refused (" + cause.getMessage() + ")";
    }
    log.info("this Redis does not give scripts its clock: {}. Every script call now reads TIME first and"
        + " passes it in (one more command per call; still the server's clock, so never early)", problem);
    return new ServerTime(connection, true);
  }

  boolean isPassed() {
    return passed || simulatedMicros != null;
  }

  void simulate(java.util.function.LongSupplier epochMicros) {
    this.simulatedMicros = epochMicros;
  }

  /**
   * The server time to pass as a script's first argument: {@link #IN_SCRIPT} when the script reads
   * it itself, else TIME read from the node that serves {@code key}, in epoch microseconds.
   */
  CompletableFuture<byte[]> forKey(byte[] key) {
    java.util.function.LongSupplier simulated = simulatedMicros;
    if (simulated != null) {
      return CompletableFuture.completedFuture(Keys.bytes(Long.toString(simulated.getAsLong())));
    }
    if (!passed) {
      return CompletableFuture.completedFuture(IN_SCRIPT);
    }
    CompletableFuture<List<byte[]>> time;
    if (connection instanceof StatefulRedisClusterConnection<byte[], byte[]> cluster) {
      RedisClusterNode master = cluster.getPartitions().getMasterBySlot(SlotHash.getSlot(key));
      time =
          master == null
              ? cluster.async().time().toCompletableFuture()
              : cluster
                  .getConnectionAsync(master.getUri().getHost(), master.getUri().getPort())
                  .thenCompose(node -> node.async().time());
    } else {
      time = ((StatefulRedisConnection<byte[], byte[]>) connection).async().time().toCompletableFuture();
    }
    return time.thenApply(
        t -> Keys.bytes(Long.toString(Long.parseLong(text(t.get(0))) * 1_000_000L + Long.parseLong(text(t.get(1))))));
  }

  private static String text(Object o) {
    return o instanceof byte[] b ? new String(b, StandardCharsets.US_ASCII) : String.valueOf(o);
  }
}
