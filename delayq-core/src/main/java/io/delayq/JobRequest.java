package io.delayq;

import io.delayq.internal.Rules;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Objects;

/**
 * A job to schedule: a payload, when to run it, and how to treat it. Build one with {@link
 * #of(byte[])} or {@link #of(String)} and the {@code with…} methods; every value is checked here,
 * so a bad request fails before anything reaches Redis.
 *
 * <pre>{@code
 * queue.schedule(JobRequest.of("{\"order\":42}").withId("order-42").withDelay(Duration.ofMinutes(30)));
 * }</pre>
 *
 * <p>With neither a delay nor a time the job is due at once. A time in the past also means "due
 * now"; a negative delay is refused, since it is almost always a bug in the caller's arithmetic.
 *
 * @param id the job's id, or {@code null} to have one generated; 1 to {@value Rules#MAX_ID_BYTES}
 *     UTF-8 bytes, no control characters
 * @param payload the bytes handed to the worker; its size limit is the client's {@code
 *     maxPayloadBytes}
 * @param delay how long from now (by the Redis clock) the job is due, or {@code null}
 * @param runAt when the job is due, or {@code null}; at most one of delay and runAt is set
 * @param maxAttempts how many times the job is tried before it goes to the dead-letter set
 * @param onDuplicate what happens when the id is already known
 * @param payloadIsJson whether the payload is JSON text ({@link #ofJson}), handed out over HTTP as
 *     that JSON value; since 0.2.0
 * @since 0.1.0
 */
public record JobRequest(
    String id,
    byte[] payload,
    Duration delay,
    Instant runAt,
    int maxAttempts,
    DuplicatePolicy onDuplicate,
    boolean payloadIsJson) {

  /** Attempts a job gets when the request does not say. */
  public static final int DEFAULT_MAX_ATTEMPTS = 5;

  public JobRequest {
    if (id != null) {
      Rules.checkJobId(id);
    }
    if (payload == null) {
      throw new InvalidRequestException(
          "payload", "is missing; pass an empty byte array for a job that needs no payload");
    }
    if (delay != null && runAt != null) {
      throw new InvalidRequestException(
          "delay/runAt",
          "both were given (delay " + delay + ", runAt " + runAt + "); give one of them");
    }
    if (delay != null) {
      Rules.delayMillis(delay);
    }
    if (runAt != null) {
      Rules.runAtMillis(runAt);
    }
    Rules.checkMaxAttempts(maxAttempts);
    Objects.requireNonNull(onDuplicate, "onDuplicate");
  }

  /** A job due now with this payload, a generated id and the default settings. */
  /** A request for a payload of plain bytes (or text): {@link #payloadIsJson()} is false. */
  public JobRequest(String id, byte[] payload, Duration delay, Instant runAt, int maxAttempts, DuplicatePolicy onDuplicate) {
    this(id, payload, delay, runAt, maxAttempts, onDuplicate, false);
  }

  public static JobRequest of(byte[] payload) {
    return new JobRequest(null, payload, null, null, DEFAULT_MAX_ATTEMPTS, DuplicatePolicy.REPLACE, false);
  }

  /**
   * A request whose payload is JSON text, stored as its UTF-8 bytes and marked as JSON: a Java
   * worker sees those bytes, and the HTTP API hands the payload out as that JSON value rather
   * than as a string. delayq does not parse it; pass well-formed JSON.
   *
   * @since 0.2.0
   */
  public static JobRequest ofJson(String json) {
    if (json == null) {
      return of((byte[]) null);
    }
    return new JobRequest(null, json.getBytes(StandardCharsets.UTF_8), null, null, DEFAULT_MAX_ATTEMPTS,
        DuplicatePolicy.REPLACE, true);
  }

  /** A job due now whose payload is this text in UTF-8. */
  public static JobRequest of(String payload) {
    if (payload == null) {
      return of((byte[]) null);
    }
    return of(payload.getBytes(StandardCharsets.UTF_8));
  }

  public JobRequest withId(String id) {
    return new JobRequest(id, payload, delay, runAt, maxAttempts, onDuplicate, payloadIsJson);
  }

  /** Due this long after it reaches Redis. Clears any {@code runAt}. */
  public JobRequest withDelay(Duration delay) {
    return new JobRequest(
        id, payload, Objects.requireNonNull(delay, "delay"), null, maxAttempts, onDuplicate, payloadIsJson);
  }

  /** Due at this instant (by the Redis clock). Clears any delay. */
  public JobRequest withRunAt(Instant runAt) {
    return new JobRequest(
        id, payload, null, Objects.requireNonNull(runAt, "runAt"), maxAttempts, onDuplicate, payloadIsJson);
  }

  public JobRequest withMaxAttempts(int maxAttempts) {
    return new JobRequest(id, payload, delay, runAt, maxAttempts, onDuplicate, payloadIsJson);
  }

  public JobRequest withOnDuplicate(DuplicatePolicy onDuplicate) {
    return new JobRequest(id, payload, delay, runAt, maxAttempts, onDuplicate, payloadIsJson);
  }

  /** The payload decoded as UTF-8. */
  public String payloadAsString() {
    return new String(payload, StandardCharsets.UTF_8);
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof JobRequest that
        && Objects.equals(id, that.id)
        && Arrays.equals(payload, that.payload)
        && Objects.equals(delay, that.delay)
        && Objects.equals(runAt, that.runAt)
        && maxAttempts == that.maxAttempts
        && onDuplicate == that.onDuplicate
        && payloadIsJson == that.payloadIsJson;
  }

  @Override
  public int hashCode() {
    return Objects.hash(id, Arrays.hashCode(payload), delay, runAt, maxAttempts, onDuplicate, payloadIsJson);
  }

  @Override
  public String toString() {
    return "JobRequest[id="
        + id
        + ", payload="
        + payload.length
        + (payloadIsJson ? " bytes of JSON, delay=" : " bytes, delay=")
        + delay
        + ", runAt="
        + runAt
        + ", maxAttempts="
        + maxAttempts
        + ", onDuplicate="
        + onDuplicate
        + "]";
  }
}
