package io.delayq.internal.metrics;

import io.delayq.QueueStats;
import io.delayq.internal.QueueMeters;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/** The meters of one queue (names, tags and units: docs/METRICS.md). */
final class QueueSeries implements QueueMeters {
  /** A gauge's value, written by the refresher thread. */
  private static final class Depth {
    volatile double value = Double.NaN;

    double value() {
      return value;
    }
  }

  private final String name;
  private final MeterRegistry registry;
  private final Supplier<CompletableFuture<QueueStats>> depth;
  private final List<Meter> meters = new ArrayList<>();
  private final List<Meter> gauges = new ArrayList<>();
  private final Counter created;
  private final Counter replaced;
  private final Counter kept;
  private final Counter delivered;
  private final Counter acked;
  private final Counter retried;
  private final Counter dead;
  private final Counter released;
  private final Counter leasesExpired;
  private final Timer lateness;
  private final Timer succeeded;
  private final Timer failed;
  private final Depth scheduled = new Depth();
  private final Depth due = new Depth();
  private final Depth active = new Depth();
  private final Depth expired = new Depth();
  private final Depth buried = new Depth();
  private final Depth paused = new Depth();
  // why: plain fields; a racy read only makes eviction pick a queue a moment off
  private long lastUsed = System.nanoTime();
  private volatile boolean retired;

  QueueSeries(
      MeterRegistry registry, String name, Supplier<CompletableFuture<QueueStats>> depth, Duration[] latenessSlos,
      boolean latenessPercentileHistogram) {
    this.registry = registry;
    this.name = name;
    this.depth = depth;
    String scheduledHelp = "Jobs a schedule call of this client created, replaced (same id, REPLACE) or kept (same id, KEEP)";
    created = counter("delayq.jobs.scheduled", scheduledHelp, "outcome", "created");
    replaced = counter("delayq.jobs.scheduled", scheduledHelp, "outcome", "replaced");
    kept = counter("delayq.jobs.scheduled", scheduledHelp, "outcome", "kept");
    delivered = counter("delayq.jobs.delivered", "Jobs leased by this client's claims (workers and pull claims)");
    acked = counter("delayq.jobs.acked", "Deliveries acked by this client");
    retried = counter("delayq.jobs.retried", "Deliveries that failed with attempts left and were scheduled again");
    dead = counter("delayq.jobs.dead", "Jobs moved to the dead-letter set: a failed last attempt, or a lease that ended on it");
    released = counter("delayq.jobs.released", "Deliveries handed back uncounted, due again at once");
    leasesExpired = counter("delayq.leases.expired", "Leases that ended without an ack, recovered by this client's claims");
    lateness = keep(Timer.builder("delayq.job.lateness")
        .description("How long after its due time a job was claimed: claim time minus due time, by the Redis clock")
        .tag("queue", name)
        .serviceLevelObjectives(latenessSlos)
        .publishPercentileHistogram(latenessPercentileHistogram)
        .minimumExpectedValue(Duration.ofMillis(1))
        .maximumExpectedValue(Duration.ofMinutes(10))
        .register(registry));
    succeeded = handlerTimer("success");
    failed = handlerTimer("failure");
    gauge("delayq.queue.jobs", "scheduled", scheduled);
    gauge("delayq.queue.jobs", "due", due);
    gauge("delayq.queue.jobs", "active", active);
    gauge("delayq.queue.jobs", "expired", expired);
    gauge("delayq.queue.jobs", "dead", buried);
    gauge("delayq.queue.paused", null, paused);
  }

  private Counter counter(String meter, String description, String... tags) {
    return keep(Counter.builder(meter).description(description).tag("queue", name).tags(tags).register(registry));
  }

  private Timer handlerTimer(String outcome) {
    return keep(Timer.builder("delayq.handler.duration")
        .description("How long this client's handlers ran, by whether they returned (success) or threw (failure)")
        .tags("queue", name, "outcome", outcome)
        .register(registry));
  }

  private void gauge(String meter, String state, Depth value) {
    Gauge.Builder<Depth> builder = Gauge.builder(meter, value, Depth::value).tag("queue", name).strongReference(true);
    if (state == null) {
      builder.description("Whether claiming from the queue is paused (1) or not (0), as last read");
    } else {
      builder.description("Jobs in the queue by state (scheduled includes due), as last read in the background")
          .tag("state", state);
    }
    gauges.add(keep(builder.register(registry)));
  }

  private <M extends Meter> M keep(M meter) {
    meters.add(meter);
    return meter;
  }

  String name() {
    return name;
  }

  long lastUsed() {
    return lastUsed;
  }

  CompletableFuture<QueueStats> readDepth() {
    try {
      return depth.get();
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  void show(QueueStats stats) {
    scheduled.value = stats.scheduled();
    due.value = stats.due();
    active.value = stats.active();
    expired.value = stats.expired();
    buried.value = stats.dead();
    paused.value = stats.paused() ? 1 : 0;
  }

  void showUnknown() {
    for (Depth d : List.of(scheduled, due, active, expired, buried, paused)) {
      d.value = Double.NaN;
    }
  }

  /** Removes every meter of this queue from the registry; callers then get a new series. */
  void retire() {
    retired = true;
    meters.forEach(registry::remove);
  }

  void removeGauges() {
    showUnknown();
    gauges.forEach(registry::remove);
  }

  @Override
  public void touch() {
    lastUsed = System.nanoTime();
  }

  @Override
  public boolean retired() {
    return retired;
  }

  @Override
  public void scheduled(int created, int replaced, int kept) {
    increment(this.created, created);
    increment(this.replaced, replaced);
    increment(this.kept, kept);
  }

  @Override
  public void delivered(long latenessMicros) {
    delivered.increment();
    lateness.record(Math.max(0, latenessMicros), TimeUnit.MICROSECONDS);
  }

  @Override
  public void acked(int jobs) {
    increment(acked, jobs);
  }

  @Override
  public void retried() {
    retried.increment();
  }

  @Override
  public void dead(int jobs) {
    increment(dead, jobs);
  }

  @Override
  public void released(int jobs) {
    increment(released, jobs);
  }

  @Override
  public void leasesExpired(int leases) {
    increment(leasesExpired, leases);
  }

  @Override
  public void handled(long nanos, boolean success) {
    (success ? succeeded : failed).record(nanos, TimeUnit.NANOSECONDS);
  }

  private static void increment(Counter counter, int by) {
    if (by > 0) {
      counter.increment(by);
    }
  }
}
