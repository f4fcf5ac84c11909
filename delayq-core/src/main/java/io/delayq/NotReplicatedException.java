package io.delayq;

import java.util.List;

/**
 * A durable schedule (see {@link Delayq.Builder#waitForReplicas}) reached the master, but fewer
 * replicas than required confirmed it in time. The jobs are scheduled; they are lost only if that
 * master fails before its replicas catch up. To make sure of them, schedule the same requests again
 * with {@link DuplicatePolicy#KEEP} within the client's idempotency window: a job still waiting is
 * kept as it is, and one scheduled with {@code KEEP} that ran or was cancelled in the meantime is
 * not scheduled again. A job first scheduled with {@link DuplicatePolicy#REPLACE} that already ran
 * would run a second time, so schedule with {@code KEEP} from the start where that matters.
 *
 * @since 0.1.0
 */
public final class NotReplicatedException extends DelayqException {
  private static final long serialVersionUID = 1L;

  private final int required;
  private final int confirmed;
  private final List<String> unconfirmedIds;

  public NotReplicatedException(
      String queue, int required, int confirmed, List<String> unconfirmedIds, java.time.Duration idempotencyWindow) {
    super(
        "queue '" + queue + "': " + unconfirmedIds.size() + " job(s) were written to the master but only "
            + confirmed + " of " + required + " required replica(s) confirmed in time ("
            + abbreviate(unconfirmedIds) + "). Check the replicas' health and replication lag. "
            + (idempotencyWindow.isZero()
                ? "The idempotency window is off, so scheduling these ids again is safe only for jobs"
                    + " that have not run yet"
                : "Scheduling the same requests again with DuplicatePolicy.KEEP within "
                    + idempotencyWindow + " (the idempotency window) is safe for jobs scheduled with KEEP: a job"
                    + " still waiting is kept, one that ran or was cancelled meanwhile is not scheduled again."
                    + " A job first scheduled with REPLACE that already ran would run again"));
    this.required = required;
    this.confirmed = confirmed;
    this.unconfirmedIds = List.copyOf(unconfirmedIds);
  }

  private static String abbreviate(List<String> ids) {
    return ids.size() <= 10 ? String.join(", ", ids) : String.join(", ", ids.subList(0, 10)) + ", …";
  }

  public int required() {
    return required;
  }

  public int confirmed() {
    return confirmed;
  }

  /** Ids of the jobs whose write was not confirmed by enough replicas. */
  public List<String> unconfirmedIds() {
    return unconfirmedIds;
  }
}
