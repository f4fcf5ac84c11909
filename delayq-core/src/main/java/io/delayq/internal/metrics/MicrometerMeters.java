package io.delayq.internal.metrics;

import io.delayq.QueueStats;
import io.delayq.internal.Meters;
import io.delayq.internal.QueueMeters;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client's meters on a Micrometer registry (docs/METRICS.md lists them). Counters and timers are
 * updated as jobs pass through the client; depth gauges show values read in the background by one
 * thread, {@code delayq-metrics}, once per refresh interval with one stats call per queue, so a
 * scrape never waits for Redis.
 *
 * <p>Queues come and go, and a server's names come from its clients: meters are kept for the
 * {@value #MAX_QUEUES} queues used most recently. When one more is used, every meter of the queue
 * used longest ago is removed (its counters start from zero should it come back, which Prometheus
 * reads as a reset).
 */
public final class MicrometerMeters implements Meters {
  private static final Logger log = LoggerFactory.getLogger(MicrometerMeters.class);
  /** Most queues with meters at once. */
  public static final int MAX_QUEUES = 200;

  private final MeterRegistry registry;
  private final Duration[] latenessSlos;
  private final boolean latenessPercentileHistogram;
  private final Duration depthInterval;
  private final Duration timeout;
  private final Map<String, QueueSeries> queues = new ConcurrentHashMap<>();
  /** Guarded by this, as is {@link #closed}. */
  private ScheduledExecutorService refresher;
  private boolean closed;
  /** Refresher thread only: whether the last refresh failed for some queue. */
  private boolean failing;

  public MicrometerMeters(
      MeterRegistry registry, List<Duration> latenessSlos, boolean latenessPercentileHistogram,
      Duration depthInterval, Duration timeout) {
    this.registry = registry;
    this.latenessSlos = latenessSlos.toArray(Duration[]::new);
    this.latenessPercentileHistogram = latenessPercentileHistogram;
    this.depthInterval = depthInterval;
    this.timeout = timeout;
  }

  @Override
  public QueueMeters queue(String queue, Supplier<CompletableFuture<QueueStats>> depth) {
    QueueSeries series = queues.get(queue);
    if (series != null) {
      return series;
    }
    synchronized (this) {
      if (closed) {
        return QueueMeters.NONE;
      }
      series = queues.get(queue);
      if (series == null) {
        if (queues.size() >= MAX_QUEUES) {
          retireLeastRecentlyUsed();
        }
        series = new QueueSeries(registry, queue, depth, latenessSlos, latenessPercentileHistogram);
        queues.put(queue, series);
        QueueSeries first = series;
        // why: its gauges show NaN until read; read this queue now rather than at the next round
        refresher().execute(() -> refresh(List.of(first)));
      }
      return series;
    }
  }

  private void retireLeastRecentlyUsed() {
    queues.values().stream().min(Comparator.comparingLong(QueueSeries::lastUsed)).ifPresent(eldest -> {
      queues.remove(eldest.name());
      eldest.retire();
      log.debug("meters of queue '{}' removed: {} other queues were used since", eldest.name(), MAX_QUEUES);
    });
  }

  private ScheduledExecutorService refresher() {
    if (refresher == null) {
      refresher = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "delayq-metrics");
        t.setDaemon(true);
        return t;
      });
      long every = depthInterval.toMillis();
      refresher.scheduleWithFixedDelay(() -> refresh(List.copyOf(queues.values())), every, every, TimeUnit.MILLISECONDS);
    }
    return refresher;
  }

  /** Reads the counts of {@code series}, all at once, each waited for until one timeout from now. */
  private void refresh(List<QueueSeries> series) {
    List<CompletableFuture<QueueStats>> pending = new ArrayList<>(series.size());
    for (QueueSeries s : series) {
      pending.add(s.readDepth());
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    int failed = 0;
    Throwable failure = null;
    for (int i = 0; i < series.size(); i++) {
      QueueSeries s = series.get(i);
      try {
        s.show(pending.get(i).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (ExecutionException | TimeoutException | RuntimeException e) {
        s.showUnknown();
        failed++;
        failure = e instanceof ExecutionException ? e.getCause() : e;
      }
    }
    if (failed > 0 && !failing) {
      log.warn("the depth gauges of {} queue(s) cannot be read from Redis ({}); they show NaN until it answers",
          failed, String.valueOf(failure));
    } else if (failed == 0 && failing) {
      log.info("the depth gauges can be read from Redis again");
    }
    failing = failed > 0;
  }

  @Override
  public void close() {
    List<QueueSeries> all;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      if (refresher != null) {
        refresher.shutdownNow();
      }
      all = List.copyOf(queues.values());
    }
    for (QueueSeries s : all) {
      s.removeGauges();
    }
  }
}
