package io.delayq;

import java.util.Objects;

/**
 * A job as {@link QueueAdmin#listJobSummaries} lists it: everything {@link QueueAdmin#listJobs}
 * shows but the payload's bytes, which stay in Redis.
 *
 * @param job the job, with an empty {@link JobInfo#payload()}
 * @param payloadBytes the size of its payload in bytes (for a stored record no delayq version can
 *     read, the size of the whole record)
 * @since 0.5.0
 */
public record JobSummary(JobInfo job, long payloadBytes) {
  public JobSummary {
    Objects.requireNonNull(job, "job");
    if (payloadBytes < 0) {
      throw new IllegalArgumentException("payloadBytes must not be negative; got " + payloadBytes);
    }
  }

  /** The job's id. */
  public String id() {
    return job.id();
  }
}
