package io.delayq.spring.internal.listener;

import io.delayq.Delayq;
import io.delayq.JobHandler;
import io.delayq.WorkerOptions;
import io.delayq.Workers;
import io.delayq.spring.listener.DelayqListenerContainer;
import java.util.Map;
import java.util.concurrent.ExecutorService;

/**
 * The workers of one listener method, started and stopped as a unit; a stopped container starts
 * fresh workers. With virtual threads on, each start gets its own executor of virtual threads,
 * shut down when the workers have closed.
 */
final class ListenerContainer implements DelayqListenerContainer {
  private final String id;
  private final String queue;
  private final String listener;
  private final Delayq delayq;
  /** Replaced (before the first start) when occurrences of schedules are routed to other methods. */
  private volatile JobHandler handler;
  /** Replaced (before the first start) when occurrences of schedules are routed to other methods. */
  private WorkerOptions options;
  private final boolean autoStartup;
  private final boolean virtualThreads;
  /** Read without the lock, so that a stop waiting for handlers does not hold up those who look. */
  private volatile Workers workers;
  private ExecutorService executor;

  ListenerContainer(String id, String queue, String listener, Delayq delayq, JobHandler handler, WorkerOptions options,
      boolean autoStartup, boolean virtualThreads) {
    this.id = id;
    this.queue = queue;
    this.listener = listener;
    this.delayq = delayq;
    this.handler = handler;
    this.options = options;
    this.autoStartup = autoStartup;
    this.virtualThreads = virtualThreads;
  }

  @Override
  public String id() {
    return id;
  }

  @Override
  public String queue() {
    return queue;
  }

  /** The listener method, as messages name it. */
  String listener() {
    return listener;
  }

  /**
   * Runs each occurrence of these schedules on its method, every other job on this container's
   * own handler, and keeps leases while handlers run: a scheduled method (a nightly report) may
   * well take longer than the listener's lease, and must not run again meanwhile.
   */
  synchronized void routeOccurrences(Map<String, JobHandler> methods) {
    if (workers != null) {
      throw new IllegalStateException(this + " is running; routes are set before it starts");
    }
    handler = new OccurrenceRouter(queue, methods, handler, options.nonRetryable());
    options = options.toBuilder().keepLeaseWhileRunning(true).build();
  }

  boolean autoStartup() {
    return autoStartup;
  }

  @Override
  public boolean isRunning() {
    Workers current = workers;
    return current != null && current.isRunning();
  }

  @Override
  public int inFlight() {
    Workers current = workers;
    return current == null ? 0 : current.inFlight();
  }

  /** Whether it has workers, running or closing. */
  boolean started() {
    return workers != null;
  }

  @Override
  public synchronized void start() {
    if (workers != null) {
      return;
    }
    WorkerOptions run = options;
    if (virtualThreads) {
      executor = VirtualThreads.executor("delayq-worker-" + queue + "-");
      run = options.toBuilder().executor(executor).build();
    }
    try {
      workers = delayq.queue(queue).startWorkers(handler, run);
    } catch (RuntimeException e) {
      shutDownExecutor();
      throw e;
    }
  }

  @Override
  public synchronized void stop() {
    if (workers == null) {
      return;
    }
    try {
      workers.close();
    } finally {
      workers = null;
      shutDownExecutor();
    }
  }

  private void shutDownExecutor() {
    if (executor != null) {
      // why: as on the workers' own threads, a handler still running past the shutdown timeout is
      // interrupted; it keeps its job's lease until it returns
      executor.shutdownNow();
      executor = null;
    }
  }

  @Override
  public String toString() {
    return "listener '" + id + "' on queue '" + queue + "' (" + listener + ")";
  }
}
