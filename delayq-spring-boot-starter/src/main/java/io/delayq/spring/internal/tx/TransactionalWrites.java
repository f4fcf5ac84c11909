package io.delayq.spring.internal.tx;

import io.delayq.JobRequest;
import java.time.Instant;

/**
 * What {@code DelayqTemplate} does with a write made inside an active transaction. Times are
 * absolute epoch milliseconds, fixed by the caller's clock when the call was made, so that a write
 * applied later (after commit, or by the outbox relay minutes later) means what it meant then.
 */
public interface TransactionalWrites {

  /**
   * Records a schedule to apply when the transaction commits.
   *
   * @param request the job; its delay and runAt are ignored in favour of {@code dueMs}, and a null
   *     id is generated here
   * @return the job's id
   */
  String schedule(String queue, JobRequest request, long dueMs);

  /**
   * Records a cancel to apply when the transaction commits.
   *
   * @return whether a scheduled job with this id exists now (in the outbox or in Redis)
   */
  boolean cancel(String queue, String id);

  /**
   * Records a reschedule to apply when the transaction commits.
   *
   * @return the new due time
   */
  Instant reschedule(String queue, String id, long dueMs);
}
