package io.delayq;

import java.time.Instant;
import java.util.Objects;

/**
 * The answer to a schedule call.
 *
 * @param id the job's id (generated when the request had none)
 * @param runAt when it is due, by the Redis server's clock; {@code null} when the request was
 *     {@linkplain Outcome#KEPT kept} out and the existing job is not waiting (it is active or dead)
 * @param outcome whether the job was created, replaced an earlier one, or left the earlier one as
 *     it was
 * @since 0.1.0
 */
public record ScheduledJob(String id, Instant runAt, Outcome outcome) {
  /** What scheduling did. */
  public enum Outcome {
    CREATED,
    REPLACED,
    KEPT
  }

  public ScheduledJob {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(outcome, "outcome");
  }
}
