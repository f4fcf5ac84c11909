package io.delayq.observation;

import io.micrometer.observation.transport.SenderContext;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The context of a {@code delayq.schedule} observation: one call of {@code JobQueue.schedule} or
 * {@code scheduleAll}. As a {@link SenderContext}, a tracer's propagating sender handler (Micrometer
 * Tracing's {@code PropagatingSenderTracingObservationHandler}) writes the call's trace context into
 * its carrier when the observation starts; delayq stores that carrier with every job of the call, at
 * most 1 KiB of it (a larger one is dropped whole), and hands it back with each delivery as {@code
 * LeasedJob.traceHeaders()}.
 *
 * @since 0.2.0
 */
public final class ScheduleObservationContext extends SenderContext<Map<String, String>> {
  private final String queue;
  private final int jobCount;
  private String jobId;
  private String outcome;

  /** A context for scheduling {@code jobCount} jobs on {@code queue}; made by delayq. */
  public ScheduleObservationContext(String queue, int jobCount) {
    super((carrier, key, value) -> {
      if (carrier != null && key != null && value != null) {
        carrier.put(key, value);
      }
    });
    setCarrier(new LinkedHashMap<>());
    this.queue = queue;
    this.jobCount = jobCount;
  }

  /** The queue's name. */
  public String getQueue() {
    return queue;
  }

  /** How many jobs the call schedules. */
  public int getJobCount() {
    return jobCount;
  }

  /** The id of the job when the call schedules one, once it is known; else null. */
  public String getJobId() {
    return jobId;
  }

  public void setJobId(String jobId) {
    this.jobId = jobId;
  }

  /** {@code success} or {@code failure} once the call has returned or thrown; null before. */
  public String getOutcome() {
    return outcome;
  }

  public void setOutcome(String outcome) {
    this.outcome = outcome;
  }
}
