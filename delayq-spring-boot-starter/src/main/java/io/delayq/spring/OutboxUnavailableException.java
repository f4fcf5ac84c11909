package io.delayq.spring;

import io.delayq.DelayqException;

/**
 * A job was to be scheduled, cancelled or rescheduled inside a transaction, and there is no
 * transactional outbox for that transaction to write it to. Calling Redis at once would schedule
 * the job even if the transaction rolls back; calling it after commit would lose the job if the
 * process died in between. So the call is refused, with nothing written. The message says which
 * of the causes applies: no single {@code DataSource} (or no {@code spring-boot-jdbc}), a
 * transaction that does not include the outbox's {@code DataSource}, or no outbox table in the
 * database; and the ways out: create the table, give the
 * application that {@code DataSource} and its transaction manager, make the call outside the
 * transaction, or set {@code delayq.outbox.enabled=false} to accept after-commit-only scheduling.
 *
 * @since 0.3.0
 */
public class OutboxUnavailableException extends DelayqException {
  private static final long serialVersionUID = 1L;

  public OutboxUnavailableException(String message) {
    super(message);
  }

  public OutboxUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
