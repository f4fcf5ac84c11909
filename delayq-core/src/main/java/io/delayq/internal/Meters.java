package io.delayq.internal;

import io.delayq.QueueStats;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * A client's meters, made in {@code io.delayq.internal.metrics} over Micrometer when a registry is
 * given, or {@link #NONE}. Only that package touches Micrometer, so the client loads without it.
 */
public interface Meters extends AutoCloseable {
  Meters NONE = new Meters() {
    @Override
    public QueueMeters queue(String queue, Supplier<CompletableFuture<QueueStats>> depth) {
      return QueueMeters.NONE;
    }

    @Override
    public void close() {}
  };

  /**
   * The meters of {@code queue}, made when the client first uses it. {@code depth} reads the queue's
   * counts for its depth gauges, off the caller's thread and at most once per refresh interval.
   */
  QueueMeters queue(String queue, Supplier<CompletableFuture<QueueStats>> depth);

  /** Stops refreshing depths and removes the depth gauges; counters and timers stay registered. */
  @Override
  void close();
}
