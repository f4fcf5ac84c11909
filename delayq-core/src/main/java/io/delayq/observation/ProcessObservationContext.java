package io.delayq.observation;

import io.delayq.LeasedJob;
import io.micrometer.observation.Observation;
import java.util.Map;
import java.util.Objects;

/**
 * The context of a {@code delayq.process} observation: one run of a worker's handler on one
 * delivery. On purpose not a {@code ReceiverContext}: a job runs hours after it was scheduled, so
 * its processing must not become a child span of the schedule call (which a tracer's propagating
 * receiver handler would make it). The stored trace context is at hand as {@link
 * #getTraceHeaders()}; {@link ProcessTracingObservationHandler} starts the span as a new trace with
 * a link to it. Without that handler a tracer's default handler starts an unlinked span.
 *
 * @since 0.2.0
 */
public final class ProcessObservationContext extends Observation.Context {
  private final LeasedJob job;
  private String outcome;

  /** A context for running a handler on {@code job}; made by delayq. */
  public ProcessObservationContext(LeasedJob job) {
    this.job = Objects.requireNonNull(job, "job");
  }

  /** The delivery being handled. */
  public LeasedJob getJob() {
    return job;
  }

  /** The queue's name. */
  public String getQueue() {
    return job.queue();
  }

  /** The trace propagation headers stored with the job when it was scheduled; empty when none. */
  public Map<String, String> getTraceHeaders() {
    return job.traceHeaders();
  }

  /** {@code success} or {@code failure} once the handler has returned or thrown; null before. */
  public String getOutcome() {
    return outcome;
  }

  public void setOutcome(String outcome) {
    this.outcome = outcome;
  }
}
