package io.delayq.spring.internal.tx;

import io.delayq.JobRequest;
import io.delayq.spring.OutboxUnavailableException;
import java.time.Instant;

/** For an application with no outbox: every write inside a transaction is refused, saying why. */
public final class RefusingWrites implements TransactionalWrites {
  static final String WAYS_OUT =
      " Either give the application one DataSource (spring-boot-starter-jdbc) and run the transaction"
          + " on its transaction manager, so the job is written to the delayq_outbox table with the"
          + " transaction; or make the call outside the transaction; or set delayq.outbox.enabled=false"
          + " to schedule after commit only (a job is then lost if the process stops between the"
          + " commit and Redis).";

  private final String reason;

  /** @param reason why there is no outbox, e.g. "the application has no DataSource bean" */
  public RefusingWrites(String reason) {
    this.reason = reason;
  }

  @Override
  public String schedule(String queue, JobRequest request, long dueMs) {
    throw refusal("schedule a job in queue '" + queue + "'");
  }

  @Override
  public boolean cancel(String queue, String id) {
    throw refusal("cancel job '" + id + "' in queue '" + queue + "'");
  }

  @Override
  public Instant reschedule(String queue, String id, long dueMs) {
    throw refusal("reschedule job '" + id + "' in queue '" + queue + "'");
  }

  private OutboxUnavailableException refusal(String what) {
    return refusal(what, reason);
  }

  static OutboxUnavailableException refusal(String what, String reason) {
    return new OutboxUnavailableException(
        "cannot " + what + " inside this transaction: " + reason + ", so delayq has no outbox to"
            + " write it to, and neither calling Redis now (the job would stay if the transaction"
            + " rolls back) nor after commit (it would be lost if the process stopped in between)"
            + " is safe." + WAYS_OUT);
  }
}
