package io.delayq.internal;

import io.delayq.Delayq;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * A test seam: makes every script of one client read "now" from a simulated clock, passed in
 * as the first argument exactly as for a Redis that refuses TIME inside scripts (see {@link
 * ServerTime}). What is due, leases, misfires and the idempotency window then all follow the
 * simulated clock; Redis's own key expiry does not (delayq sets none on job data). Not for
 * production use.
 */
public final class SimulatedTime {
  private SimulatedTime() {}

  /**
   * From now on, every script the client of {@code delayq} runs reads {@code epochMicros} as the
   * server's time.
   */
  public static void install(Delayq delayq, LongSupplier epochMicros) {
    ((QueueHandle) delayq.queue("simulated-time")).client().serverTime().simulate(epochMicros);
  }

  /** Waits until no schedule is being tended in this process (tending runs off the claim's thread). */
  public static boolean awaitTending(Duration timeout) throws InterruptedException {
    return ScheduleEngine.awaitIdle(timeout);
  }
}
