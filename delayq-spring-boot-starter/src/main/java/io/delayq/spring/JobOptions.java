package io.delayq.spring;

import io.delayq.DuplicatePolicy;
import io.delayq.JobRequest;
import java.util.Objects;

/**
 * How {@link DelayqTemplate} schedules one job: its id, how many attempts it gets, and what
 * happens when the id is already known. Immutable; every value is checked when the options are
 * made, with the same rules and messages as {@link JobRequest}.
 *
 * <pre>{@code
 * template.schedule("orders", order, Duration.ofMinutes(30),
 *     JobOptions.ofId("order-" + order.id()).withOnDuplicate(DuplicatePolicy.KEEP));
 * }</pre>
 *
 * @param id the job's id, or {@code null} to have one generated
 * @param maxAttempts attempts before the job goes to the dead-letter set
 * @param onDuplicate what scheduling does when a job with this id is already known; irrelevant
 *     for a generated id
 * @since 0.3.0
 */
public record JobOptions(String id, int maxAttempts, DuplicatePolicy onDuplicate) {
  private static final JobOptions DEFAULTS =
      new JobOptions(null, JobRequest.DEFAULT_MAX_ATTEMPTS, DuplicatePolicy.REPLACE);

  public JobOptions {
    Objects.requireNonNull(onDuplicate, "onDuplicate");
    // why: one set of rules for ids and attempts, the core's, checked here rather than at the call
    new JobRequest(id, new byte[0], null, null, maxAttempts, onDuplicate);
  }

  /** A generated id, {@value JobRequest#DEFAULT_MAX_ATTEMPTS} attempts, {@link DuplicatePolicy#REPLACE}. */
  public static JobOptions defaults() {
    return DEFAULTS;
  }

  /** The defaults with this id. */
  public static JobOptions ofId(String id) {
    return DEFAULTS.withId(Objects.requireNonNull(id, "id"));
  }

  public JobOptions withId(String id) {
    return new JobOptions(id, maxAttempts, onDuplicate);
  }

  public JobOptions withMaxAttempts(int maxAttempts) {
    return new JobOptions(id, maxAttempts, onDuplicate);
  }

  public JobOptions withOnDuplicate(DuplicatePolicy onDuplicate) {
    return new JobOptions(id, maxAttempts, onDuplicate);
  }
}
