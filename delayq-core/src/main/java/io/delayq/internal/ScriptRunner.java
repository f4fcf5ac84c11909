package io.delayq.internal;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Runs scripts by SHA. When Redis answers NOSCRIPT (after a restart, a failover or SCRIPT FLUSH)
 * the script is loaded and the call retried exactly once.
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
                return redis
                    .scriptLoad(script.body())
                    .toCompletableFuture()
                    .thenCompose(sha -> this.<T>call(script, keys, args));
              }
              return CompletableFuture.<T>failedFuture(cause);
            })
        .thenCompose(f -> f);
  }

  private <T> CompletableFuture<T> call(Script script, byte[][] keys, byte[][] args) {
    return redis.<T>evalsha(script.sha(), script.outputType(), keys, args).toCompletableFuture();
  }
}
