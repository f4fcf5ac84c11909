package io.delayq.spring.internal;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Stops several things at once, each on its own thread, and waits for all of them, however long:
 * their waits (a listener's shutdown timeout, a forwarder's owed confirms) overlap rather than add
 * up, and the Delayq client, closed after, never closes under one still finishing.
 */
public final class InParallel {
  private InParallel() {}

  /**
   * @param threadName names each one's thread, for thread dumps
   * @param stop stops one; it handles (logs) its own failures
   */
  public static <T> void stopAll(Collection<? extends T> items, Function<T, String> threadName, Consumer<T> stop) {
    List<Thread> stopping = new ArrayList<>();
    for (T item : items) {
      Thread t = new Thread(() -> stop.accept(item), threadName.apply(item));
      t.start();
      stopping.add(t);
    }
    boolean interrupted = false;
    for (Thread t : stopping) {
      while (t.isAlive()) {
        try {
          t.join();
        } catch (InterruptedException e) {
          // why: the client must not close under one of them still finishing
          interrupted = true;
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
