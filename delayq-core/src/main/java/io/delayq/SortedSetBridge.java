package io.delayq;

import java.time.Instant;
import java.util.Objects;

/**
 * Keeps moving the members of a hand-rolled sorted-set delay queue into a delayq queue, in the
 * background, until closed: started by {@link JobQueue#adopt}. Producers go on writing to the sorted
 * set, and old consumers may go on reading it; each member still goes to exactly one of them or to
 * delayq. Closing stops the moving; members not yet moved stay in the sorted set.
 *
 * @since 0.3.0
 */
public interface SortedSetBridge extends AutoCloseable {
  /** The sorted set's key. */
  String source();

  /** The queue its members go to. */
  String queue();

  /** What the bridge is doing now and has done since it started. */
  Status status();

  /** Stops moving, after the batch in flight; idempotent. */
  @Override
  void close();

  /**
   * A snapshot of a bridge.
   *
   * @param state what it is doing now
   * @param totals counts since the start ({@code moved}, {@code merged}, {@code takenByOthers},
   *     {@code hashedIds}) and of the last pass ({@code heldBack}, {@code rejected}, {@code remaining})
   * @param lastPassAt when the last pass over the source ended, or {@code null} before the first
   * @param lastError the last failure or refusal, or {@code null} if there was none
   * @param lastErrorAt when it happened, or {@code null}
   */
  record Status(State state, AdoptionReport totals, Instant lastPassAt, String lastError, Instant lastErrorAt) {
    public Status {
      Objects.requireNonNull(state, "state");
      Objects.requireNonNull(totals, "totals");
    }

    /** Whether the bridge is moving members right now. */
    public boolean isHealthy() {
      return state == State.RUNNING;
    }
  }

  /** What a bridge is doing. */
  enum State {
    /** Moving members each poll interval. */
    RUNNING,
    /** Redis is unreachable or failing; it keeps trying each poll interval, and members wait in the source. */
    RETRYING,
    /**
     * The source cannot be moved safely as it is (a key of another type, scores of both units); it
     * moves nothing and checks again each poll interval, until the data or the options are fixed.
     */
    REFUSING,
    /** Closed, or its client was closed. */
    CLOSED
  }
}
