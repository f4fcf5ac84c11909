package io.delayq;

/**
 * Workers running a handler on one queue, started by {@link JobQueue#startWorkers}. Closing them
 * stops claiming, waits up to the shutdown timeout for running handlers, and hands back at once
 * every job they could not finish, so another worker takes it without waiting for its lease.
 *
 * @since 0.1.0
 */
public interface Workers extends AutoCloseable {
  /** The queue these workers serve. */
  String queue();

  /** Handlers running right now. */
  int inFlight();

  /** Whether they still claim jobs. */
  boolean isRunning();

  /** Stops them; idempotent. */
  @Override
  void close();
}
