package io.delayq.spring.tx;

import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Faults the tests inject into the database connections of a committing thread's after-commit
 * delivery, standing in for a process that stops at that point. The relay's thread is never
 * faulted: it plays the instance that survives.
 */
final class Faults {
  enum Kind {
    NONE,
    /** The process stops right after the commit: the delivery never reaches Redis. */
    BEFORE_REDIS,
    /** The process stops after Redis took the writes, before their rows are deleted. */
    AFTER_REDIS
  }

  private final ThreadLocal<Kind> onThisThread = ThreadLocal.withInitial(() -> Kind.NONE);
  private volatile Kind everywhere = Kind.NONE;

  /** Faults the deliveries of transactions this thread commits from now on. */
  void onThisThread(Kind kind) {
    onThisThread.set(kind);
  }

  /** Faults the deliveries of every committing thread from now on. */
  void everywhere(Kind kind) {
    everywhere = kind;
  }

  private Kind current() {
    if (Thread.currentThread().getName().startsWith("delayq-outbox-relay")) {
      return Kind.NONE;
    }
    Kind local = onThisThread.get();
    return local != Kind.NONE ? local : everywhere;
  }

  /**
   * A connection asked for while a transaction is active is one the after-commit delivery borrows
   * (the transaction's own was taken when it began, before it was active); the delivery borrows
   * one only when the transaction's connection is no longer bound to the thread.
   */
  boolean failConnection() {
    return current() == Kind.BEFORE_REDIS && TransactionSynchronizationManager.isActualTransactionActive();
  }

  /**
   * Before Redis: the delivery's first statement, locking the committed transaction's rows by
   * their seqs (the relay locks by due time). After Redis: the delivery's delete of the rows it
   * applied.
   */
  boolean failStatement(String sql) {
    return switch (current()) {
      case BEFORE_REDIS -> TransactionSynchronizationManager.isActualTransactionActive()
          && ((sql.contains(" WHERE seq IN (") && sql.endsWith(" FOR UPDATE SKIP LOCKED"))
              || (sql.startsWith("UPDATE ") && sql.endsWith(" SET relay_attempts = relay_attempts WHERE seq = ?")));
      case AFTER_REDIS -> sql.startsWith("DELETE FROM ") && sql.endsWith(" WHERE seq = ?");
      case NONE -> false;
    };
  }
}
