package io.delayq.internal;

import io.delayq.LeasedJob;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/** One delivery of a job, as a claim returned it. */
final class Delivery implements LeasedJob {
  private final Settling settling;
  private final int partition;
  private final String id;
  private final byte[] payload;
  private final boolean payloadIsJson;
  private final int attempt;
  private final int maxAttempts;
  private final long token;
  private final Instant runAt;
  private final Instant createdAt;
  private final TraceHeaders trace;
  private volatile Instant leaseUntil;
  /**
   * When the lease ends by the local monotonic clock, counted from when the claim was sent: the
   * script started the lease later than that, so this errs early, never late.
   */
  private volatile long leaseEndsNanos;

  Delivery(
      Settling settling,
      int partition,
      String id,
      JobRecord record,
      int attempt,
      long token,
      Instant runAt,
      Instant leaseUntil,
      long leaseEndsNanos) {
    this.settling = settling;
    this.partition = partition;
    this.id = Objects.requireNonNull(id, "id");
    this.payload = record.payload();
    this.payloadIsJson = record.json();
    this.attempt = attempt;
    this.maxAttempts = record.maxAttempts();
    this.token = token;
    this.runAt = runAt;
    this.createdAt = Instant.ofEpochMilli(record.createdMillis());
    this.trace = record.trace();
    this.leaseUntil = leaseUntil;
    this.leaseEndsNanos = leaseEndsNanos;
  }

  int partition() {
    return partition;
  }

  long leaseEndsNanos() {
    return leaseEndsNanos;
  }

  /** Records an extension that Redis confirmed; {@code sentNanos} is when it was asked for. */
  void extended(Instant until, long sentNanos, long leaseMillis) {
    leaseUntil = until;
    leaseEndsNanos = sentNanos + leaseMillis * 1_000_000L;
  }

  @Override
  public String queue() {
    return settling.queueName();
  }

  @Override
  public String id() {
    return id;
  }

  @Override
  public byte[] payload() {
    return payload;
  }

  @Override
  public boolean payloadIsJson() {
    return payloadIsJson;
  }

  @Override
  public String payloadAsString() {
    return new String(payload, StandardCharsets.UTF_8);
  }

  @Override
  public int attempt() {
    return attempt;
  }

  @Override
  public int maxAttempts() {
    return maxAttempts;
  }

  @Override
  public long token() {
    return token;
  }

  @Override
  public Instant runAt() {
    return runAt;
  }

  @Override
  public Instant createdAt() {
    return createdAt;
  }

  @Override
  public Instant leaseUntil() {
    return leaseUntil;
  }

  @Override
  public Map<String, String> traceHeaders() {
    return trace.asMap();
  }

  @Override
  public Instant extendLease(Duration lease) {
    return settling.extend(this, lease);
  }

  @Override
  public String toString() {
    return "LeasedJob[queue=" + queue() + ", id=" + id + ", attempt=" + attempt + "/" + maxAttempts
        + ", token=" + token + ", runAt=" + runAt + ", leaseUntil=" + leaseUntil + ", payload="
        + payload.length + " bytes]";
  }
}
