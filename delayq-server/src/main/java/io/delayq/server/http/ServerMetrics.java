package io.delayq.server.http;

import io.delayq.Delayq;
import io.delayq.QueueStats;
import io.delayq.ScheduledJob;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's Prometheus metrics: jobs scheduled, delivered, acked, retried and dead per queue;
 * how late jobs were claimed; HTTP requests by route and status; queue depths by state, read from
 * Redis at scrape time; JVM basics.
 *
 * <p>Queue names come from clients, so series are kept for the {@link #MAX_QUEUES} queues used
 * through this server most recently: when one more is used, the series of the one used longest ago
 * are removed from the registry (its counters start again from zero if it comes back, which
 * Prometheus reads as a counter reset). A queue first used after thousands of others gets its
 * series like the first one did. Depth gauges cover at most {@link #MAX_QUEUES} queues, the
 * recently used ones first; a queue's gauges go when it is no longer among them.
 */
final class ServerMetrics implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ServerMetrics.class);
  static final int MAX_QUEUES = 200;
  /** The meters that carry a {@code queue} label and are made as jobs pass through the API. */
  private static final List<String> PER_QUEUE_METERS = List.of(
      "delayq.jobs.scheduled", "delayq.jobs.delivered", "delayq.jobs.acked", "delayq.jobs.retried",
      "delayq.jobs.dead", "delayq.job.lateness");
  /** Prometheus text exposition format 0.0.4. */
  static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
  private static final Duration[] LATENESS_BUCKETS = {
    Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25), Duration.ofMillis(50),
    Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1),
    Duration.ofMillis(2500), Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(30),
    Duration.ofSeconds(60), Duration.ofMinutes(5)
  };
  private static final Duration[] HTTP_BUCKETS = {
    Duration.ofMillis(1), Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25),
    Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500),
    Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(30), Duration.ofSeconds(60)
  };

  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  /**
   * The queues that have series now, least recently used first. Guarded by itself, and so is
   * every registration of a per-queue meter: a meter is never registered for a queue that was
   * just evicted, which would leave a series nothing removes.
   */
  private final LinkedHashMap<String, Boolean> recent = new LinkedHashMap<>(16, 0.75f, true);
  /** Depth gauge values by "queue state", refreshed at each scrape. */
  private final Map<String, double[]> depths = new ConcurrentHashMap<>();
  private final double[] redisUp = {Double.NaN};
  private final JvmGcMetrics gc = new JvmGcMetrics();

  ServerMetrics() {
    new JvmMemoryMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    gc.bindTo(registry);
    Gauge.builder("delayq.redis.up", redisUp, v -> v[0])
        .description("Whether Redis answered at the last scrape (1) or not (0)")
        .strongReference(true)
        .register(registry);
  }

  /** Exposes how many claims are waiting now (HTTP long polls). */
  void waitingClaims(LongPolls longPolls) {
    Gauge.builder("delayq.http.waiting.claims", longPolls, LongPolls::waiting)
        .description("Claims waiting for a job now (HTTP long polls)")
        .strongReference(true)
        .register(registry);
  }

  void scheduled(String queue, List<ScheduledJob> jobs) {
    long added = jobs.stream().filter(job -> job.outcome() != ScheduledJob.Outcome.KEPT).count();
    if (added > 0) {
      counter("delayq.jobs.scheduled", "Jobs created or replaced through the API", queue).increment(added);
    }
  }

  /** A job claimed through the API, {@code lateness} after it was due (by the Redis clock). */
  void delivered(String queue, Duration lateness) {
    counter("delayq.jobs.delivered", "Jobs claimed through the API", queue).increment();
    Timer timer = registered(queue, q -> Timer.builder("delayq.job.lateness")
        .description("How long after its due time a job was claimed through the API")
        .tag("queue", q)
        .serviceLevelObjectives(LATENESS_BUCKETS)
        .register(registry));
    timer.record(lateness.isNegative() ? Duration.ZERO : lateness);
  }

  void acked(String queue) {
    counter("delayq.jobs.acked", "Jobs acked through the API", queue).increment();
  }

  void retried(String queue) {
    counter("delayq.jobs.retried", "Jobs nacked through the API and scheduled again", queue).increment();
  }

  void dead(String queue) {
    counter("delayq.jobs.dead", "Jobs nacked through the API on their last attempt, now dead", queue).increment();
  }

  /** One answered HTTP request; {@code route} is the route's pattern, never the raw path. */
  void request(String method, String route, int status, long nanos) {
    Timer.builder("delayq.http.requests")
        .description("HTTP requests by route and status")
        .tags(Tags.of("method", method, "route", route, "status", Integer.toString(status)))
        .serviceLevelObjectives(HTTP_BUCKETS)
        .register(registry)
        .record(Duration.ofNanos(nanos));
  }

  /** A connection closed as soon as it opened: the server had its maximum open, or was stopping. */
  void connectionRefused() {
    Counter.builder("delayq.http.connections.refused")
        .description("Connections closed at once because the server had --max-connections open or was stopping")
        .register(registry)
        .increment();
  }

  /** Reads every queue's counts from Redis, then renders all metrics in the Prometheus text format. */
  synchronized String scrape(Delayq delayq) {
    refreshDepths(delayq);
    return registry.scrape(CONTENT_TYPE);
  }

  /**
   * Depths of at most {@link #MAX_QUEUES} queues: first those used through this server most
   * recently (the ones its counters name), then others in name order. Depths not read this time
   * show NaN rather than an old value; gauges of queues no longer shown are removed.
   */
  private void refreshDepths(Delayq delayq) {
    try {
      Set<String> shown = new LinkedHashSet<>();
      synchronized (recent) {
        List<String> byRecency = new ArrayList<>(recent.keySet());
        Collections.reverse(byRecency);
        shown.addAll(byRecency);
      }
      for (String name : delayq.queueNames()) {
        if (shown.size() >= MAX_QUEUES) {
          break;
        }
        shown.add(name);
      }
      dropDepthsExcept(shown);
      depths.values().forEach(v -> v[0] = Double.NaN);
      for (String name : shown) {
        delayq.existingQueue(name).ifPresent(queue -> {
          QueueStats stats = queue.admin().stats();
          depth(name, "scheduled")[0] = stats.scheduled();
          depth(name, "due")[0] = stats.due();
          depth(name, "active")[0] = stats.active();
          depth(name, "expired")[0] = stats.expired();
          depth(name, "dead")[0] = stats.dead();
          depth(name, "paused")[0] = stats.paused() ? 1 : 0;
        });
      }
      redisUp[0] = 1;
    } catch (RuntimeException e) {
      log.warn("metrics scrape cannot read queue counts: {}", e.getMessage());
      redisUp[0] = 0;
      depths.values().forEach(v -> v[0] = Double.NaN);
    }
  }

  /** Removes the depth gauges of every queue not in {@code shown}. */
  private void dropDepthsExcept(Set<String> shown) {
    for (Iterator<String> keys = depths.keySet().iterator(); keys.hasNext(); ) {
      String key = keys.next();
      String queue = key.substring(0, key.lastIndexOf(' '));
      if (!shown.contains(queue)) {
        keys.remove();
        registry.find("delayq.queue.jobs").tag("queue", queue).meters().forEach(registry::remove);
        registry.find("delayq.queue.paused").tag("queue", queue).meters().forEach(registry::remove);
      }
    }
  }

  private double[] depth(String queue, String state) {
    return depths.computeIfAbsent(queue + " " + state, key -> {
      double[] value = {Double.NaN};
      if (state.equals("paused")) {
        Gauge.builder("delayq.queue.paused", value, v -> v[0])
            .description("Whether claiming from the queue is paused (1) or not (0), read at scrape time")
            .tag("queue", queue)
            .strongReference(true)
            .register(registry);
      } else {
        Gauge.builder("delayq.queue.jobs", value, v -> v[0])
            .description("Jobs in the queue by state (scheduled includes due), read at scrape time")
            .tags("queue", queue, "state", state)
            .strongReference(true)
            .register(registry);
      }
      return value;
    });
  }

  private Counter counter(String name, String description, String queue) {
    return registered(queue, q -> Counter.builder(name).description(description).tag("queue", q).register(registry));
  }

  /**
   * Registers (or finds) a meter of {@code queue}, which becomes the most recently used; when
   * that makes one queue too many, the series of the one used longest ago are removed first.
   */
  private <M> M registered(String queue, Function<String, M> register) {
    synchronized (recent) {
      if (recent.put(queue, Boolean.TRUE) == null && recent.size() > MAX_QUEUES) {
        String eldest = recent.keySet().iterator().next();
        recent.remove(eldest);
        for (String meter : PER_QUEUE_METERS) {
          registry.find(meter).tag("queue", eldest).meters().forEach(registry::remove);
        }
      }
      return register.apply(queue);
    }
  }

  @Override
  public void close() {
    gc.close();
    registry.close();
  }
}
