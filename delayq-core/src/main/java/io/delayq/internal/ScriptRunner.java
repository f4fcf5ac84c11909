package io.delayq.internal;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Runs scripts by SHA. When Redis answers NOSCRIPT (after a restart, a failover or SCRIPT FLUSH)
 * the call is retried exactly once with the script's text ({@code EVAL}), which also caches it.
 * {@code EVAL} is routed by its keys like {@code EVALSHA}, so on a cluster it reaches the node that
 * lacked the script; a separate {@code SCRIPT LOAD} would go to some other node.
 *
 * <p>Every partition script takes the server's time as its first argument (see {@link
 * ServerTime}); the runner fills it in.
 */
public final class ScriptRunner {
  private final RedisClusterAsyncCommands<byte[], byte[]> redis;
  private final ServerTime serverTime;

  ScriptRunner(RedisClusterAsyncCommands<byte[], byte[]> redis, ServerTime serverTime) {
    this.redis = redis;
    this.serverTime = serverTime;
  }

  /** Runs a partition script; {@code args[0]} is the slot for the server's time. */
  public <T> CompletableFuture<T> run(Script script, byte[][] keys, byte[][] args) {
    if (!serverTime.isPassed() || !script.readsClock()) {
      args[0] = ServerTime.IN_SCRIPT;
      return runNow(script, keys, args);
    }
    return serverTime
        .forKey(keys[0])
        .thenCompose(
            now -> {
              args[0] = now;
              return this.<T>runNow(script, keys, args);
            });
  }

  private <T> CompletableFuture<T> runNow(Script script, byte[][] keys, byte[][] args) {
    CompletableFuture<T> first = redis.<T>evalsha(script.sha(), script.outputType(), keys, args).toCompletableFuture();
    return first
        .handle(
            (value, error) -> {
              if (error == null) {
                return CompletableFuture.completedFuture(value);
              }
              Throwable cause = error instanceof CompletionException ? error.getCause() : error;
              if (cause instanceof RedisNoScriptException) {
                return redis.<T>eval(script.bodyBytes(), script.outputType(), keys, args).toCompletableFuture();
              }
              return CompletableFuture.<T>failedFuture(cause);
            })
        .thenCompose(f -> f);
  }

  /**
   * Redis {@code EXISTS} on this runner's connection: how many of {@code keys} exist. A plain read
   * that needs no clock, for a look cheaper than a script; the keys of one partition share a slot.
   */
  public CompletableFuture<Long> countExisting(byte[]... keys) {
    return redis.exists(keys).toCompletableFuture();
  }

  /**
   * Redis {@code WAIT} on this runner's connection: how many replicas have every write sent on it
   * so far, waiting up to {@code timeoutMillis} for {@code replicas} of them.
   */
  public CompletableFuture<Long> waitForReplicas(int replicas, long timeoutMillis) {
    return redis.waitForReplication(replicas, timeoutMillis).toCompletableFuture();
  }
}
