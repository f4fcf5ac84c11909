package io.delayq.spring.internal.tx;

import io.delayq.Delayq;
import io.delayq.DuplicatePolicy;
import io.delayq.JobRequest;
import io.delayq.internal.Ids;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * {@code delayq.outbox.enabled=false}: writes made inside a transaction are kept in memory and
 * sent to Redis after it commits; a rollback drops them. Nothing survives the process: a write
 * whose commit went through but whose Redis call did not (the process stopped, Redis was down)
 * is lost, and said so in the log at ERROR. The application chose this by turning the outbox off.
 */
public final class AfterCommitWrites implements TransactionalWrites {
  private static final Logger LOG = LoggerFactory.getLogger(AfterCommitWrites.class);

  private final Delayq delayq;

  public AfterCommitWrites(Delayq delayq) {
    this.delayq = delayq;
  }

  @Override
  public String schedule(String queue, JobRequest request, long dueMs) {
    String id = request.id() != null ? request.id() : Ids.generate();
    // why: a generated id is new, so KEEP is the same as REPLACE for it, and it makes a retry safe
    DuplicatePolicy policy = request.id() == null ? DuplicatePolicy.KEEP : request.onDuplicate();
    JobRequest fixed = request.withId(id).withRunAt(Instant.ofEpochMilli(dueMs)).withOnDuplicate(policy);
    pending().add(new Write("schedule", queue, id, () -> delayq.queue(queue).schedule(fixed)));
    return id;
  }

  @Override
  public boolean cancel(String queue, String id) {
    pending().add(new Write("cancel", queue, id, () -> delayq.queue(queue).cancel(id)));
    return RedisAnswers.scheduledNow(delayq, queue, id);
  }

  @Override
  public Instant reschedule(String queue, String id, long dueMs) {
    Instant runAt = Instant.ofEpochMilli(dueMs);
    RedisAnswers.requireReschedulable(delayq, queue, id);
    pending().add(new Write("reschedule", queue, id, () -> delayq.queue(queue).reschedule(id, runAt)));
    return runAt;
  }

  private List<Write> pending() {
    for (TransactionSynchronization s : TransactionSynchronizationManager.getSynchronizations()) {
      if (s instanceof AfterCommit mine && mine.owner == this) {
        return mine.writes;
      }
    }
    AfterCommit created = new AfterCommit(this);
    TransactionSynchronizationManager.registerSynchronization(created);
    return created.writes;
  }

  private record Write(String what, String queue, String id, Runnable call) {}

  /** One per transaction (a suspended outer one keeps its own). */
  private static final class AfterCommit implements TransactionSynchronization {
    final AfterCommitWrites owner;
    final List<Write> writes = new ArrayList<>();

    AfterCommit(AfterCommitWrites owner) {
      this.owner = owner;
    }

    @Override
    public void afterCommit() {
      for (Write write : writes) {
        try {
          write.call.run();
        } catch (RuntimeException e) {
          // why: never thrown on: the transaction has committed, and an exception here would also
          // stop the other synchronizations of the commit
          LOG.error(
              "delayq: the {} of job '{}' in queue '{}' was committed but could not be sent to Redis,"
                  + " and is lost (delayq.outbox.enabled=false keeps no outbox): {}",
              write.what, write.id, write.queue, e.toString());
        }
      }
    }
  }
}
