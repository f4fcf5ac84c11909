package io.delayq.spring.listener;

/**
 * The workers of one {@link DelayqListener} method. Thread-safe; obtained from the {@link
 * DelayqListenerRegistry}.
 *
 * @since 0.3.0
 */
public interface DelayqListenerContainer {
  /** The listener's id: its {@link DelayqListener#id()}, or else its queue. */
  String id();

  /** The queue it takes jobs from. */
  String queue();

  /** Whether it is claiming jobs now. */
  boolean isRunning();

  /** Handlers of this listener running right now, including any still finishing after a stop. */
  int inFlight();

  /** Starts claiming jobs; does nothing when it runs already. */
  void start();

  /**
   * Stops claiming and waits for the running handlers, at most {@code
   * delayq.listener.shutdown-timeout}; jobs claimed but not started go back to the schedule at once,
   * uncounted. A handler still running after the timeout keeps its job's lease until it returns,
   * so no other worker runs that job meanwhile. Does nothing when it is stopped already; it can be
   * started again.
   */
  void stop();
}
