package io.delayq.internal;

import java.time.Duration;

/** The client's settings, checked and immutable; built by {@code Delayq.Builder}. */
public record ClientSettings(
    String redisUrl,
    int maxPayloadBytes,
    Duration commandTimeout,
    int deadLetterLimit,
    Duration deadLetterRetention,
    boolean refuseEvictingRedis,
    int replicasToWait,
    Duration replicaTimeout,
    Duration idempotencyWindow,
    Duration heartbeatInterval,
    boolean history,
    Duration historyFlushInterval) {

  /** Settings as before heartbeats and history existed: their defaults. */
  public ClientSettings(String redisUrl, int maxPayloadBytes, Duration commandTimeout, int deadLetterLimit,
      Duration deadLetterRetention, boolean refuseEvictingRedis, int replicasToWait, Duration replicaTimeout,
      Duration idempotencyWindow) {
    this(redisUrl, maxPayloadBytes, commandTimeout, deadLetterLimit, deadLetterRetention, refuseEvictingRedis,
        replicasToWait, replicaTimeout, idempotencyWindow, Duration.ofSeconds(5), true, Duration.ofSeconds(5));
  }
}
