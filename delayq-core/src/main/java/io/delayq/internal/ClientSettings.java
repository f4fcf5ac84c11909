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
    Duration idempotencyWindow) {}
