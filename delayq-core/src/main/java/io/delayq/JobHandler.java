package io.delayq;

/**
 * The work to do when a job is due. Returning normally acks the job; throwing fails this attempt,
 * and the job is retried after a backoff until its attempts are spent, then goes dead. A {@link
 * NonRetryableJobException}, or an exception of a type named by {@link
 * WorkerOptions.Builder#nonRetryable}, sends the job to the dead-letter set at once.
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface JobHandler {
  void handle(LeasedJob job) throws Exception;
}
