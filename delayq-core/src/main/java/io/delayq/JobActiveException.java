package io.delayq;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A worker holds the job right now, so it can no longer be cancelled, rescheduled or replaced. The
 * attempt will end with an ack, a retry, or a lease expiry; act on the job after that, or schedule
 * a new one under another id.
 *
 * @since 0.1.0
 */
public final class JobActiveException extends JobException {
  private static final long serialVersionUID = 1L;

  private final transient List<ScheduledJob> batchResults;

  public JobActiveException(String queue, String jobId, String message) {
    this(queue, jobId, message, List.of());
  }

  /**
   * @param batchResults for {@code scheduleAll}: one entry per request, in order, {@code null}
   *     where the request was refused because a worker holds that job
   */
  public JobActiveException(String queue, String jobId, String message, List<ScheduledJob> batchResults) {
    super(queue, jobId, message);
    this.batchResults = Collections.unmodifiableList(new ArrayList<>(batchResults));
  }

  /**
   * For {@code scheduleAll}, which schedules the other requests before it throws: one entry per
   * request, in order, with the scheduled job (and so any generated id), or {@code null} where
   * the request was refused. Empty for the single-job calls.
   */
  public List<ScheduledJob> batchResults() {
    return batchResults == null ? List.of() : batchResults;
  }
}
