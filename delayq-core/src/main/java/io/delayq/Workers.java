package io.delayq;

/**
 * Workers running a handler on one queue, started by {@link JobQueue#startWorkers}. Closing them
 * runs in order: no job waiting in their local buffer is started any more, claiming stops, and
 * the jobs that never started go back to the schedule at once, uncounted, for another worker to
 * take. Running handlers get the shutdown timeout to finish; one still running after it is
 * interrupted (on the workers' own threads) and keeps its job's lease, extended in the background,
 * until it returns, so no other worker runs that job at the same time.
 *
 * @since 0.1.0
 */
public interface Workers extends AutoCloseable {
  /** The queue these workers serve. */
  String queue();

  /** Handlers running right now (including any still finishing after {@link #close()}). */
  int inFlight();

  /** Whether they still claim jobs. */
  boolean isRunning();

  /** Stops them; idempotent. */
  @Override
  void close();
}
