package io.delayq.spring.internal.tx;

import io.delayq.Delayq;
import io.delayq.JobActiveException;
import io.delayq.JobInfo;
import io.delayq.JobNotFoundException;
import io.delayq.JobState;
import java.util.Optional;

/**
 * The answers a cancel or reschedule inside a transaction gives at the call, read from Redis
 * (the write itself waits for the commit), so that the caller learns what it would learn outside
 * a transaction: whether there is a job to act on, and whether a worker holds it.
 */
final class RedisAnswers {
  private RedisAnswers() {}

  /** Whether Redis holds a scheduled job with this id now; a held one fails as a cancel would. */
  static boolean scheduledNow(Delayq delayq, String queue, String id) {
    Optional<JobInfo> job = lookUp(delayq, queue, id);
    if (job.isEmpty()) {
      return false;
    }
    JobState state = job.get().state();
    if (state == JobState.ACTIVE || state == JobState.EXPIRED) {
      throw new JobActiveException(queue, id, "a worker holds this job now; it can no longer be cancelled");
    }
    return state == JobState.SCHEDULED;
  }

  /** Fails as a reschedule would when Redis holds no scheduled job with this id. */
  static void requireReschedulable(Delayq delayq, String queue, String id) {
    Optional<JobInfo> job = lookUp(delayq, queue, id);
    JobState state = job.map(JobInfo::state).orElse(null);
    if (state == JobState.ACTIVE || state == JobState.EXPIRED) {
      throw new JobActiveException(queue, id, "a worker holds this job now; it can no longer be rescheduled");
    }
    if (state != JobState.SCHEDULED) {
      throw new JobNotFoundException(queue, id, "no scheduled job has this id");
    }
  }

  /** Reads only: a queue that does not exist yet is not created by asking. */
  private static Optional<JobInfo> lookUp(Delayq delayq, String queue, String id) {
    return delayq.existingQueue(queue).flatMap(q -> q.get(id));
  }
}
