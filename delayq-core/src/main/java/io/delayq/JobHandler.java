package io.delayq;

/**
 * The work to do when a job is due. Returning normally acks the job; throwing fails this attempt,
 * and the job is retried after a backoff until its attempts are spent, then goes dead.
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface JobHandler {
  void handle(LeasedJob job) throws Exception;
}
