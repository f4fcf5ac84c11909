package io.delayq;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.Objects;

/**
 * A job as it is stored now, read by id.
 *
 * @param id the job's id
 * @param state where it is in its life
 * @param runAt when it is due; set only while {@link JobState#SCHEDULED}
 * @param leaseUntil when the current delivery's lease ends (or ended); set only while {@link
 *     JobState#ACTIVE} or {@link JobState#EXPIRED}
 * @param deadAt when it was given up on; set only while {@link JobState#DEAD}
 * @param attempts attempts started so far
 * @param maxAttempts attempts allowed before it goes dead
 * @param createdAt when it was scheduled
 * @param payload its payload
 * @param lastError the error of its last failed attempt, or {@code null}
 * @param payloadIsJson whether the payload was scheduled as JSON text ({@link JobRequest#ofJson});
 *     since 0.2.0
 * @param fencingToken the fencing token of the delivery that holds (or, while {@link
 *     JobState#EXPIRED}, held) the job's lease; 0 while no delivery holds one (never delivered, or
 *     its last delivery was settled or recovered); since 0.4.0
 * @param holder the {@link Delayq#processId()} of the client whose claim holds (or, while expired,
 *     held) the lease; null when no delivery holds one, or the lease was taken by a client older
 *     than 0.4.0; since 0.4.0
 * @since 0.1.0
 */
public record JobInfo(
    String id,
    JobState state,
    Instant runAt,
    Instant leaseUntil,
    Instant deadAt,
    int attempts,
    int maxAttempts,
    Instant createdAt,
    byte[] payload,
    String lastError,
    boolean payloadIsJson,
    long fencingToken,
    String holder) {

  public JobInfo {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(payload, "payload");
  }

  /** A job whose payload is plain bytes. */
  public JobInfo(String id, JobState state, Instant runAt, Instant leaseUntil, Instant deadAt, int attempts,
      int maxAttempts, Instant createdAt, byte[] payload, String lastError) {
    this(id, state, runAt, leaseUntil, deadAt, attempts, maxAttempts, createdAt, payload, lastError, false);
  }

  /** A job no delivery holds: no fencing token, no holder. */
  public JobInfo(String id, JobState state, Instant runAt, Instant leaseUntil, Instant deadAt, int attempts,
      int maxAttempts, Instant createdAt, byte[] payload, String lastError, boolean payloadIsJson) {
    this(id, state, runAt, leaseUntil, deadAt, attempts, maxAttempts, createdAt, payload, lastError, payloadIsJson,
        0, null);
  }

  /** The payload decoded as UTF-8. */
  public String payloadAsString() {
    return new String(payload, StandardCharsets.UTF_8);
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof JobInfo that
        && id.equals(that.id)
        && state == that.state
        && Objects.equals(runAt, that.runAt)
        && Objects.equals(leaseUntil, that.leaseUntil)
        && Objects.equals(deadAt, that.deadAt)
        && attempts == that.attempts
        && maxAttempts == that.maxAttempts
        && Objects.equals(createdAt, that.createdAt)
        && Arrays.equals(payload, that.payload)
        && Objects.equals(lastError, that.lastError)
        && payloadIsJson == that.payloadIsJson
        && fencingToken == that.fencingToken
        && Objects.equals(holder, that.holder);
  }

  @Override
  public int hashCode() {
    return Objects.hash(id, state, runAt, attempts, Arrays.hashCode(payload), fencingToken);
  }

  @Override
  public String toString() {
    return "JobInfo[id=" + id + ", state=" + state + ", runAt=" + runAt + ", leaseUntil="
        + leaseUntil + ", deadAt=" + deadAt + ", attempts=" + attempts + "/" + maxAttempts
        + ", payload=" + payload.length + " bytes, lastError=" + lastError + ", fencingToken=" + fencingToken
        + ", holder=" + holder + "]";
  }
}
