package io.delayq.checker;

import java.util.List;
import java.util.Set;

/**
 * One broken promise found in a history: which check, which job, what was seen, and the records
 * (by sequence number) that prove it.
 */
record Violation(Kind kind, String id, String message, Set<Integer> refs, List<String> evidence) {
  /** The checks; each names the promise of DESIGN.md it stands for. */
  enum Kind {
    /** (1) At the end an id is in more than one state, or get() disagrees with the model. */
    FINAL_STATE,
    /** (1) After the drain, with healthy workers and no faults, a job is still scheduled or held. */
    STUCK,
    /** (2) Two deliveries of one job held live leases at the same time. */
    OVERLAP,
    /** (2) A closing pool's handler was still running on a lease with time left, yet another delivery took the job. */
    KEEPER_LOST_LEASE,
    /** (3) A call carrying a token was accepted after a later delivery of the job had been claimed. */
    STALE_ACCEPTED,
    /** (3) An ack, nack or release was accepted after the delivery's lease had ended. */
    ACCEPTED_AFTER_LEASE_END,
    /** (3) An extension was accepted although the lease had already ended. */
    EXTEND_AFTER_LEASE_END,
    /** (3) One delivery was settled (ack, nack or release accepted) more than once, or extended after. */
    SETTLED_TWICE,
    /** Known outcomes: a call was refused while its delivery certainly held a live lease. */
    WRONGLY_REFUSED,
    /** (4) A job was claimed before its due time by the Redis clock. */
    EARLY,
    /** (5) A schedule Redis acknowledged was never delivered, not superseded, and is gone at the end. */
    LOST,
    /** (6) A scheduling was delivered again after an ack, a burial, a cancel or a replacement had ended it. */
    DUPLICATE,
    /** A delivered payload that no acknowledged (or unknown) schedule wrote: a KEEP that did not keep. */
    PHANTOM,
    /** Attempt counting: an attempt beyond maxAttempts, one that went backwards, or a nack answered wrongly. */
    ATTEMPTS,
    /** Known outcomes: a call reported as failed without effect (RedisUnavailableException) took effect. */
    KNOWN_OUTCOME
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder();
    s.append(kind).append(" job ").append(id).append(": ").append(message);
    for (String line : evidence) {
      s.append("\n      ").append(line);
    }
    return s.toString();
  }
}
