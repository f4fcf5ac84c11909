package io.delayq;

import java.time.Instant;
import java.util.Objects;

/**
 * A snapshot of a {@link Forwarder}.
 *
 * @param state what it is doing now
 * @param target where it forwards to, as {@link Forwarder#target()}
 * @param forwarded jobs the target confirmed and delayq recorded as done, since the start
 * @param deadLettered jobs sent to the dead-letter set because the target can never take them
 *     (a RabbitMQ message that no queue is bound for, for example), since the start
 * @param retried jobs handed back to delayq to be tried again (target down, refused, no
 *     confirmation in time), since the start
 * @param inFlight jobs passed on and not yet confirmed
 * @param lastError the last failure, or {@code null} if there was none
 * @param lastErrorAt when it happened, or {@code null}
 * @since 0.3.0
 */
public record ForwarderStatus(
    State state,
    String target,
    long forwarded,
    long deadLettered,
    long retried,
    int inFlight,
    String lastError,
    Instant lastErrorAt) {

  /** What a forwarder is doing. */
  public enum State {
    /** Connecting to its target for the first time. */
    STARTING,
    /** Forwarding. */
    RUNNING,
    /** Its target is unreachable or failing; it keeps trying, with backoff, and jobs wait in delayq. */
    RETRYING,
    /**
     * Its target refuses it for a reason only a change of configuration fixes (an exchange that does
     * not exist, a key of the wrong type); it keeps checking, with backoff, and jobs wait in delayq.
     */
    MISCONFIGURED,
    /** Closed. */
    CLOSED
  }

  public ForwarderStatus {
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(target, "target");
  }

  /** Whether the forwarder is passing jobs on right now. */
  public boolean isHealthy() {
    return state == State.RUNNING;
  }
}
