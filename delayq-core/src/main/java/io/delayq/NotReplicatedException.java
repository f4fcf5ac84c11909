package io.delayq;

import java.util.List;

/**
 * A durable schedule (see {@link Delayq.Builder#waitForReplicas}) reached the master, but fewer
 * replicas than required confirmed it in time. The jobs are scheduled; they are lost only if that
 * master fails before its replicas catch up. Scheduling the same ids again is safe with the default
 * {@link DuplicatePolicy#REPLACE}.
 *
 * @since 0.1.0
 */
public final class NotReplicatedException extends DelayqException {
  private static final long serialVersionUID = 1L;

  private final int required;
  private final int confirmed;
  private final List<String> unconfirmedIds;

  public NotReplicatedException(String queue, int required, int confirmed, List<String> unconfirmedIds) {
    super(
        "queue '" + queue + "': " + unconfirmedIds.size() + " job(s) were written to the master but only "
            + confirmed + " of " + required + " required replica(s) confirmed in time ("
            + abbreviate(unconfirmedIds) + "). Check the replicas' health and replication lag;"
            + " scheduling the same ids again is safe");
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
