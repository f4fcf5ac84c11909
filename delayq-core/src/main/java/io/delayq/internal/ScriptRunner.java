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
 */
public final class ScriptRunner {
  private final RedisClusterAsyncCommands<byte[], byte[]> redis;

  public ScriptRunner(RedisClusterAsyncCommands<byte[], byte[]> redis) {
    this.redis = redis;
  }

  public <T> CompletableFuture<T> run(Script script, byte[][] keys, byte[]... args) {
    CompletableFuture<T> first = call(script, keys, args);
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
   * Redis {@code WAIT} on this runner's connection: how many replicas have every write sent on it
   * so far, waiting up to {@code timeoutMillis} for {@code replicas} of them.
   */
  public CompletableFuture<Long> waitForReplicas(int replicas, long timeoutMillis) {
    return redis.waitForReplication(replicas, timeoutMillis).toCompletableFuture();
  }

  private <T> CompletableFuture<T> call(Script script, byte[][] keys, byte[][] args) {
    return redis.<T>evalsha(script.sha(), script.outputType(), keys, args).toCompletableFuture();
  }
}
