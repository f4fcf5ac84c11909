package io.delayq.spring.internal.listener;

import io.delayq.spring.internal.InParallel;
import io.delayq.spring.listener.DelayqListenerContainer;
import io.delayq.spring.listener.DelayqListenerRegistry;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.SmartLifecycle;

/**
 * The application's listener containers, and their part in the context's lifecycle: started once
 * the context is refreshed, stopped (all at once, each waiting for its own handlers) before the
 * delayq client bean, which this bean depends on, is closed.
 */
public final class ListenerRegistry implements DelayqListenerRegistry, SmartLifecycle, DisposableBean {
  private static final Logger log = LoggerFactory.getLogger(ListenerRegistry.class);

  private final Map<String, ListenerContainer> containers = new ConcurrentSkipListMap<>();
  private volatile boolean running;

  /** Adds a container; a second one with the same id or on the same queue is refused. */
  synchronized void register(ListenerContainer container) {
    for (ListenerContainer other : containers.values()) {
      if (other.queue().equals(container.queue())) {
        throw new ListenerDefinitionException(container.listener(), "queue '" + container.queue() + "' has a"
            + " listener already: " + other.listener() + ". Two listeners on one queue would take each other's"
            + " jobs at random; use one method (with more concurrency), or a queue for each");
      }
    }
    ListenerContainer same = containers.putIfAbsent(container.id(), container);
    if (same != null) {
      throw new ListenerDefinitionException(container.listener(), "id '" + container.id() + "' is taken by "
          + same.listener() + "; give each listener its own id");
    }
  }

  /** The container on this queue, if there is one. */
  Optional<ListenerContainer> onQueue(String queue) {
    return containers.values().stream().filter(c -> c.queue().equals(queue)).findFirst();
  }

  @Override
  public List<DelayqListenerContainer> containers() {
    return List.copyOf(containers.values());
  }

  @Override
  public Optional<DelayqListenerContainer> container(String id) {
    return Optional.ofNullable(containers.get(id));
  }

  @Override
  public void start() {
    running = true;
    for (ListenerContainer container : containers.values()) {
      if (container.autoStartup()) {
        container.start();
      }
    }
    if (!containers.isEmpty()) {
      log.info("started delayq listener(s): {}", containers.values().stream()
          .map(c -> c.id() + (c.isRunning() ? "" : " (not started)")).toList());
    }
  }

  /**
   * Stops every container at once, each on its own thread, and returns when all have: each waits
   * for its running handlers for its shutdown timeout, in parallel, so closing takes one timeout,
   * not one per listener. Done on the caller's thread rather than in the background so that the
   * lifecycle's own per-phase timeout cannot cut the handlers' time short and close the client
   * under them.
   */
  @Override
  public void stop() {
    running = false;
    stopAll();
  }

  @Override
  public void stop(Runnable callback) {
    try {
      stop();
    } finally {
      callback.run();
    }
  }

  private void stopAll() {
    List<ListenerContainer> started = containers.values().stream().filter(ListenerContainer::started).toList();
    if (started.size() == 1) {
      started.get(0).stop();
      return;
    }
    InParallel.stopAll(started, container -> "delayq-listener-stop-" + container.id(), container -> {
      try {
        container.stop();
      } catch (RuntimeException e) {
        log.warn("stopping {} failed", container, e);
      }
    });
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  @Override
  public int getPhase() {
    return PHASE;
  }

  /** In case the lifecycle never stopped them (a refresh that failed after they started). */
  @Override
  public void destroy() {
    running = false;
    stopAll();
  }
}
