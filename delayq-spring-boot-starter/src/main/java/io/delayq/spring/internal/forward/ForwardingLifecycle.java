package io.delayq.spring.internal.forward;

import io.delayq.spring.internal.InParallel;
import io.delayq.Forwarder;
import io.delayq.SortedSetBridge;
import io.delayq.spring.listener.DelayqListenerRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.SmartLifecycle;

/**
 * The forwarders and adoption bridges made from {@code delayq.forward.*} and {@code delayq.adopt.*},
 * and their part in the context's lifecycle: started once the context is refreshed (bridges first,
 * so that the first forward already sees adopted jobs), closed when it closes, next to the
 * listeners' phase, so before the delayq client bean, which this bean depends on, is closed.
 *
 * <p>Every setting was checked when this bean was made; what only a running Redis or broker can
 * refuse (a source that is not a sorted set) fails {@link #start()}, and so the start of the
 * application, after closing whatever had started.
 */
public final class ForwardingLifecycle implements SmartLifecycle, DisposableBean {
  private static final Logger log = LoggerFactory.getLogger(ForwardingLifecycle.class);

  private final Runnable preStart;
  private final List<Supplier<SortedSetBridge>> bridgeStarters;
  private final List<Supplier<Forwarder>> forwarderStarters;
  private final List<SortedSetBridge> bridges = new ArrayList<>();
  private final List<Forwarder> forwarders = new ArrayList<>();
  private volatile boolean running;

  /**
   * @param preStart checks that need the whole context (a listener on a forwarded queue), run first
   * @param bridgeStarters each starts one bridge, or throws naming the property at fault
   * @param forwarderStarters each starts one forwarder, or throws naming the property at fault
   */
  public ForwardingLifecycle(Runnable preStart, List<Supplier<SortedSetBridge>> bridgeStarters,
      List<Supplier<Forwarder>> forwarderStarters) {
    this.preStart = preStart;
    this.bridgeStarters = List.copyOf(bridgeStarters);
    this.forwarderStarters = List.copyOf(forwarderStarters);
  }

  /** Whether any forwarder or bridge is configured. */
  public boolean isEmpty() {
    return bridgeStarters.isEmpty() && forwarderStarters.isEmpty();
  }

  /** The forwarders running now, in the order of the properties. */
  public synchronized List<Forwarder> forwarders() {
    return List.copyOf(forwarders);
  }

  /** The bridges running now, in the order of the properties. */
  public synchronized List<SortedSetBridge> bridges() {
    return List.copyOf(bridges);
  }

  @Override
  public synchronized void start() {
    if (running) {
      return;
    }
    try {
      preStart.run();
      for (Supplier<SortedSetBridge> starter : bridgeStarters) {
        bridges.add(starter.get());
      }
      for (Supplier<Forwarder> starter : forwarderStarters) {
        forwarders.add(starter.get());
      }
    } catch (RuntimeException e) {
      closeAll();
      throw e;
    }
    running = true;
    if (!isEmpty()) {
      log.info("started delayq forwarding: {}{}",
          forwarders.stream().map(f -> f.queue() + " -> " + f.target()).toList(),
          bridges.isEmpty() ? "" : ", adopting " + bridges.stream().map(b -> b.source() + " -> " + b.queue()).toList());
    }
  }

  @Override
  public void stop() {
    running = false;
    closeAll();
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  /**
   * Just below the listeners' phase: forwarders, like listeners, drain queues, and start late and
   * stop early; one below, so that the check that no listener shares a forwarded queue runs before
   * any listener has started to take its jobs.
   */
  @Override
  public int getPhase() {
    return DelayqListenerRegistry.PHASE - 1;
  }

  /** In case the lifecycle never stopped them (a refresh that failed after they started). */
  @Override
  public void destroy() {
    running = false;
    closeAll();
  }

  /**
   * Closes the bridges (no more members moved in), then every forwarder at once, each on its own
   * thread: a RabbitMQ forwarder waits up to its confirm timeout for the broker, and the waits
   * overlap rather than add up.
   */
  private synchronized void closeAll() {
    for (SortedSetBridge bridge : bridges) {
      try {
        bridge.close();
      } catch (RuntimeException e) {
        log.warn("closing the adoption of {} into queue '{}' failed", bridge.source(), bridge.queue(), e);
      }
    }
    bridges.clear();
    List<Forwarder> closing = List.copyOf(forwarders);
    forwarders.clear();
    InParallel.stopAll(closing, forwarder -> "delayq-forwarder-stop-" + forwarder.queue(), forwarder -> {
      try {
        forwarder.close();
      } catch (RuntimeException e) {
        log.warn("closing the forwarder of queue '{}' to {} failed", forwarder.queue(), forwarder.target(), e);
      }
    });
  }
}
