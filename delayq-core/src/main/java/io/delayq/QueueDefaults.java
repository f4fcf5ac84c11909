package io.delayq;

import io.delayq.internal.Rules;
import java.time.Duration;

/**
 * Defaults stored with a queue, for callers that leave them out (the HTTP API's schedule and
 * claim). The library's own calls always say what they want.
 *
 * @param maxAttempts deliveries before a job goes to the dead-letter set, 1 to 1000
 * @param lease how long a claimed job is held before it is delivered again, 100 ms to 1 day
 * @since 0.1.0
 */
public record QueueDefaults(int maxAttempts, Duration lease) {
  public QueueDefaults {
    Rules.checkMaxAttempts(maxAttempts);
    Rules.checkLease(lease);
  }
}
