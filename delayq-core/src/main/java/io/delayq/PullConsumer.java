package io.delayq;

import io.delayq.internal.Rules;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * The worker's side of a queue for a caller that runs its own loop (or serves workers in other
 * processes): claim due jobs, then settle each delivery with its {@linkplain LeasedJob#token()
 * fencing token}. {@link JobQueue#startWorkers} does all of this for a handler. Obtained from
 * {@link JobQueue#pull()}; thread-safe.
 *
 * <p>Claims, acks, nacks, extensions and releases go over the client's worker connection, never
 * behind producers' pipelined schedule batches. A loop that finishes many jobs at a time settles
 * them with {@link #settleAll} in one call rather than one round trip each.
 *
 * @since 0.2.0
 */
public interface PullConsumer {
  /**
   * Claims up to {@code max} (1 to 1000) due jobs, each leased for {@code lease}. Returns what it
   * leased, possibly nothing; a partition that fails or times out does not cost the jobs leased
   * from the others, and jobs leased by a call that gave up waiting are handed back at once.
   *
   * @throws RedisUnavailableException when no partition could be claimed from
   */
  List<LeasedJob> claim(int max, Duration lease);

  /**
   * Like {@link #claim(int, Duration)}, but when nothing is due waits up to {@code wait} (at most
   * 5 minutes) for a job to become due, woken within milliseconds by the same messages as
   * workers, then returns what it could claim, possibly nothing. For pull loops and long polls.
   * An interrupted wait returns what it has with the thread's interrupt status set.
   */
  List<LeasedJob> claim(int max, Duration lease, Duration wait);

  /**
   * The delivery is done: the job is removed, and its id is remembered for the idempotency window.
   *
   * @throws LeaseExpiredException when this delivery no longer holds the job
   */
  void ack(String id, long token);

  /** As {@link #ack(String, long)} for a job this consumer claimed. */
  default void ack(LeasedJob job) {
    ack(job.id(), job.token());
  }

  /**
   * This delivery failed. The job runs again after {@code retryIn} (or the default backoff when
   * {@code null}), or goes dead when it has no attempts left.
   *
   * @return {@link JobState#SCHEDULED} or {@link JobState#DEAD}
   * @throws LeaseExpiredException when this delivery no longer holds the job
   */
  JobState nack(String id, long token, Duration retryIn, String error);

  /** As {@link #nack(String, long, Duration, String)} for a job this consumer claimed. */
  default JobState nack(LeasedJob job, Duration retryIn, String error) {
    return nack(job.id(), job.token(), retryIn, error);
  }

  /** Most settlements one {@link #settleAll} call takes, as many as one claim hands out. */
  int MAX_SETTLEMENTS = 1000;

  /**
   * Acks and nacks many deliveries in one call: the acks of each partition go in one script call
   * (at most 500 a call), the nacks one each, all pipelined, and the call returns once every one
   * is answered. Each settlement succeeds or fails on its own, exactly as {@link #ack} or {@link
   * #nack} would, and its answer says which: one delivery's lease being gone, or one partition
   * failing, costs only those settlements.
   *
   * <p>A job may be named once per call (a repeat is answered {@link Settled.Outcome#FAILED} with
   * an {@link InvalidRequestException}), so that no two settlements of one call race each other.
   *
   * @param settlements at most {@value #MAX_SETTLEMENTS}; none returns an empty list
   * @return one answer per settlement, in their order
   * @throws InvalidRequestException when the list is longer than {@value #MAX_SETTLEMENTS} or holds
   *     a null; nothing is settled then
   * @since 0.2.0
   */
  List<Settled> settleAll(List<Settlement> settlements);

  /**
   * Keeps a claimed job for {@code lease} more, from now.
   *
   * @return the new end of the lease
   * @throws LeaseExpiredException when this delivery no longer holds the job
   */
  Instant extendLease(String id, long token, Duration lease);

  /**
   * Hands a claimed job back, due at once, without counting the attempt: for a holder that will
   * not run it (it is shutting down, or could not pass the job on). The next delivery gets a new
   * token, so this one's calls are refused afterwards.
   *
   * @return false when this delivery no longer held the job (its lease ended, or it was settled)
   */
  boolean release(String id, long token);

  /** As {@link #release(String, long)} for a job this consumer claimed. */
  default boolean release(LeasedJob job) {
    return release(job.id(), job.token());
  }

  /**
   * Like {@link #release(String, long)}, but the job is due again only after {@code dueIn}
   * (zero: at once), still without counting the attempt. For a holder that could not pass the job
   * on through no fault of the job (a broker that is down, a target that is misconfigured): the
   * attempt is kept for failures of the job itself, and the delay keeps the holder from claiming
   * the same jobs again at once while its target is unusable.
   *
   * @param dueIn how long from now, by the Redis clock, until the job is due; zero or more and
   *     within the longest delay a schedule takes
   * @return false when this delivery no longer held the job (its lease ended, or it was settled)
   * @throws InvalidRequestException when {@code dueIn} is null, negative or too long
   * @since 0.3.0
   */
  boolean release(String id, long token, Duration dueIn);

  /**
   * Sends the job of this delivery to the dead-letter set now, whatever attempts it has left, with
   * {@code reason} as its last error: for a job that can never be done (a message that no
   * RabbitMQ queue is bound for, a payload no handler can read), where retrying would only use up
   * attempts and delay the operator's look. {@link QueueAdmin#requeueDead} brings it back.
   *
   * @param reason why, kept with the job as its last error (at most 2,000 characters are kept)
   * @throws LeaseExpiredException when this delivery no longer holds the job
   * @since 0.3.0
   */
  void bury(String id, long token, String reason);

  /**
   * One delivery to settle with {@link #settleAll}: an ack, or a nack with its retry delay and
   * error. Made with {@link #ack(String, long)} or {@link #nack(String, long, Duration, String)};
   * the id is checked here, by the rule every call applies.
   *
   * @param id the job's id
   * @param token the delivery's {@linkplain LeasedJob#token() fencing token}
   * @param action whether the delivery is done or failed
   * @param retryIn for a nack, when to run the job again; {@code null} for the default backoff
   *     (always {@code null} for an ack)
   * @param error for a nack, why it failed, kept with the job (at most 2,000 characters are
   *     kept); may be {@code null}
   * @since 0.2.0
   */
  record Settlement(String id, long token, Action action, Duration retryIn, String error) {
    /** What to do with the delivery. */
    public enum Action {
      /** As {@link PullConsumer#ack(String, long)}. */
      ACK,
      /** As {@link PullConsumer#nack(String, long, Duration, String)}. */
      NACK
    }

    public Settlement {
      Rules.checkJobId(id);
      Objects.requireNonNull(action, "action");
      if (action == Action.ACK && (retryIn != null || error != null)) {
        throw new InvalidRequestException(
            retryIn != null ? "retryIn" : "error", "is only for a nack; an ack takes the id and the token alone");
      }
      if (retryIn != null) {
        try {
          Rules.delayMillis(retryIn);
        } catch (InvalidRequestException e) {
          throw new InvalidRequestException("retryIn", e.getMessage().substring(e.field().length() + 2));
        }
      }
    }

    public static Settlement ack(String id, long token) {
      return new Settlement(id, token, Action.ACK, null, null);
    }

    public static Settlement ack(LeasedJob job) {
      return ack(job.id(), job.token());
    }

    public static Settlement nack(String id, long token, Duration retryIn, String error) {
      return new Settlement(id, token, Action.NACK, retryIn, error);
    }

    public static Settlement nack(LeasedJob job, Duration retryIn, String error) {
      return nack(job.id(), job.token(), retryIn, error);
    }
  }

  /**
   * How one settlement of a {@link #settleAll} call went.
   *
   * @param settlement the settlement this answers
   * @param outcome what became of the delivery
   * @param failure for {@link Outcome#REFUSED}, the {@link LeaseExpiredException} the single call
   *     would have thrown; for {@link Outcome#FAILED}, the exception it would have thrown (an
   *     {@link OutcomeUnknownException} when Redis did not answer in time: the settlement may or
   *     may not have taken effect, and may be sent again); otherwise {@code null}
   * @since 0.2.0
   */
  record Settled(Settlement settlement, Outcome outcome, RuntimeException failure) {
    /** What became of one delivery. */
    public enum Outcome {
      /** Acked: the job is done. */
      ACKED,
      /** Nacked: the job runs again later. */
      RETRYING,
      /** Nacked on its last attempt: the job is in the dead-letter set. */
      DEAD,
      /** The delivery no longer held the job (its lease ended, or it was settled or handed back). */
      REFUSED,
      /** Not settled, or not known to be: see {@link Settled#failure()}. */
      FAILED
    }

    public Settled {
      Objects.requireNonNull(settlement, "settlement");
      Objects.requireNonNull(outcome, "outcome");
      if ((failure == null) != (outcome == Outcome.ACKED || outcome == Outcome.RETRYING || outcome == Outcome.DEAD)) {
        throw new IllegalArgumentException("a " + outcome + " answer " + (failure == null ? "needs" : "has no") + " failure");
      }
    }

    /** Whether the settlement took effect (acked, retrying or dead). */
    public boolean isSettled() {
      return failure == null;
    }
  }
}
