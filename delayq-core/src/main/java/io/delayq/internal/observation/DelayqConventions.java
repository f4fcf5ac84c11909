package io.delayq.internal.observation;

import io.delayq.observation.ProcessObservationContext;
import io.delayq.observation.ScheduleObservationContext;
import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and key values of delayq's observations (docs/METRICS.md). Low-cardinality keys (tags of
 * the timers a meter handler makes): {@code queue} and {@code outcome}. The job id, count and
 * attempt are high-cardinality: spans carry them, meters never do.
 */
final class DelayqConventions {
  static final String SUCCESS = "success";
  static final String FAILURE = "failure";
  static final String QUEUE = "queue";
  static final String OUTCOME = "outcome";
  static final String JOB_ID = "delayq.job.id";
  static final String JOB_COUNT = "delayq.job.count";
  static final String JOB_ATTEMPT = "delayq.job.attempt";

  static final ObservationConvention<ScheduleObservationContext> SCHEDULE = new ObservationConvention<>() {
    @Override
    public String getName() {
      return "delayq.schedule";
    }

    @Override
    public String getContextualName(ScheduleObservationContext context) {
      return "schedule " + context.getQueue();
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(ScheduleObservationContext context) {
      return lowCardinality(context.getQueue(), context.getOutcome());
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(ScheduleObservationContext context) {
      KeyValues values = KeyValues.of(JOB_COUNT, Integer.toString(context.getJobCount()));
      return context.getJobId() == null ? values : values.and(JOB_ID, context.getJobId());
    }

    @Override
    public boolean supportsContext(Observation.Context context) {
      return context instanceof ScheduleObservationContext;
    }
  };

  static final ObservationConvention<ProcessObservationContext> PROCESS = new ObservationConvention<>() {
    @Override
    public String getName() {
      return "delayq.process";
    }

    @Override
    public String getContextualName(ProcessObservationContext context) {
      return "process " + context.getQueue();
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(ProcessObservationContext context) {
      return lowCardinality(context.getQueue(), context.getOutcome());
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(ProcessObservationContext context) {
      return KeyValues.of(
          KeyValue.of(JOB_ID, context.getJob().id()),
          KeyValue.of(JOB_ATTEMPT, Integer.toString(context.getJob().attempt())));
    }

    @Override
    public boolean supportsContext(Observation.Context context) {
      return context instanceof ProcessObservationContext;
    }
  };

  private DelayqConventions() {}

  /** The outcome is known once the call ends; meter handlers read the keys at start too (long task timers). */
  private static KeyValues lowCardinality(String queue, String outcome) {
    KeyValues values = KeyValues.of(QUEUE, queue);
    return outcome == null ? values : values.and(OUTCOME, outcome);
  }
}
