package io.delayq.spring.health;

import io.delayq.Delayq;
import io.delayq.DelayqException;
import io.delayq.Forwarder;
import io.delayq.ForwarderStatus;
import io.delayq.JobQueue;
import io.delayq.QueueStats;
import io.delayq.RedisStatus;
import io.delayq.ScheduleInfo;
import io.delayq.SortedSetBridge;
import io.delayq.spring.autoconfigure.DelayqProperties;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The {@code delayq} health indicator. DOWN when Redis does not answer a PING, when a watched queue
 * is stuck (a job due and unclaimed for longer than {@code delayq.health.stuck-after-sweeps} sweep
 * intervals, the queue not paused), when Redis uses more than {@code delayq.health.memory-threshold}
 * of its maxmemory, or when it may evict keys although {@code delayq.refuse-evicting-redis} is set.
 * An evicting {@code maxmemory-policy} otherwise, and a paused queue with due jobs, stay UP with a
 * warning in the details: both are deliberate settings an operator may have chosen, and a DOWN
 * that nobody can clear by fixing a fault only teaches people to ignore the indicator.
 *
 * <p>Forwarders ({@code delayq.forward.*}) and adoption bridges ({@code delayq.adopt.*}) are listed
 * with their status. One that is MISCONFIGURED (a forwarder whose exchange does not exist or whose
 * list key holds another type) or REFUSING (a bridge whose source cannot be moved safely) makes
 * health DOWN at once: nothing moves until someone fixes the configuration or the data, and jobs
 * pile up meanwhile. It is DOWN rather than OUT_OF_SERVICE, which says a component was taken out on
 * purpose; both map to HTTP 503. One that is RETRYING (broker or Redis unreachable) is a warning:
 * the fault may clear by itself, and the forwarded queue's own stuck check turns DOWN if it lasts.
 *
 * <p>The recurring schedules this application declares ({@code @DelayqScheduled}, {@code
 * delayq.schedules.*}) are listed under {@code schedules.<queue>.<name>} with their next run.
 *
 * <p>Watched queues: those this application runs workers, listeners or forwarders for ({@link
 * Delayq#workerQueues()}) and those in {@code delayq.health.queues}. Each check costs a PING and an
 * {@code INFO memory} per Redis master and one stats script per partition of each watched queue;
 * it waits at most {@code delayq.health.timeout} (2 s) for them.
 *
 * @since 0.2.0
 */
public class DelayqHealthIndicator extends AbstractHealthIndicator implements DisposableBean {
  private final Delayq delayq;
  private final DelayqProperties properties;
  private final ExecutorService probes = Executors.newSingleThreadExecutor(runnable -> {
    Thread thread = new Thread(runnable, "delayq-health");
    thread.setDaemon(true);
    return thread;
  });
  private final Supplier<? extends List<Forwarder>> forwarders;
  private final Supplier<? extends List<SortedSetBridge>> bridges;
  private final Supplier<? extends Map<String, List<String>>> schedules;
  private Future<Health> running;

  public DelayqHealthIndicator(Delayq delayq, DelayqProperties properties) {
    this(delayq, properties, List::of, List::of);
  }

  /**
   * @param forwarders the forwarders running in this application, whose status is reported
   * @param bridges the adoption bridges running in this application, whose status is reported
   * @since 0.3.0
   */
  public DelayqHealthIndicator(Delayq delayq, DelayqProperties properties,
      Supplier<? extends List<Forwarder>> forwarders, Supplier<? extends List<SortedSetBridge>> bridges) {
    this(delayq, properties, forwarders, bridges, Map::of);
  }

  /**
   * @param schedules the names of the recurring schedules this application declares, by queue,
   *     whose next run is reported
   * @since 0.4.0
   */
  public DelayqHealthIndicator(Delayq delayq, DelayqProperties properties,
      Supplier<? extends List<Forwarder>> forwarders, Supplier<? extends List<SortedSetBridge>> bridges,
      Supplier<? extends Map<String, List<String>>> schedules) {
    super("delayq health check failed");
    this.delayq = delayq;
    this.properties = properties;
    this.forwarders = forwarders;
    this.bridges = bridges;
    this.schedules = schedules;
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) {
    Duration timeout = properties.getHealth().getTimeout();
    Future<Health> probe;
    synchronized (this) {
      // why: a check still waiting on a hung Redis is waited for again rather than joined by
      // another, so a hung Redis holds one thread however often the health endpoint is called
      if (running == null || running.isDone()) {
        running = probes.submit(this::check);
      }
      probe = running;
    }
    try {
      Health health = probe.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
      builder.status(health.getStatus()).withDetails(health.getDetails());
    } catch (TimeoutException e) {
      builder.down().withDetail("error",
          "Redis did not answer within " + timeout.toMillis() + " ms (delayq.health.timeout)");
    } catch (ExecutionException e) {
      builder.down().withDetail("error", "Redis does not answer: " + e.getCause().getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      builder.unknown().withDetail("error", "interrupted while waiting for Redis");
    }
  }

  @Override
  public void destroy() {
    probes.shutdownNow();
  }

  private Health check() {
    Health.Builder builder = new Health.Builder();
    List<String> problems = new ArrayList<>();
    List<String> warnings = new ArrayList<>();
    List<Forwarder> forwarding = forwarders.get();
    List<SortedSetBridge> adopting = bridges.get();
    List<RedisStatus> masters;
    try {
      masters = delayq.redisStatus();
    } catch (DelayqException e) {
      builder.down().withDetail("error", "Redis does not answer: " + e.getMessage());
      forwardingDetails(builder, forwarding, adopting, problems, warnings);
      return builder.build();
    }
    builder.withDetail("redis", redisDetails(masters, problems, warnings));
    Set<String> forwarded = new TreeSet<>();
    forwarding.forEach(f -> forwarded.add(f.queue()));
    builder.withDetail("queues", queueDetails(forwarded, problems, warnings));
    forwardingDetails(builder, forwarding, adopting, problems, warnings);
    scheduleDetails(builder, warnings);
    if (!problems.isEmpty()) {
      builder.down().withDetail("problems", problems);
    } else {
      builder.up();
    }
    if (!warnings.isEmpty()) {
      builder.withDetail("warnings", warnings);
    }
    return builder.build();
  }

  private Map<String, Object> redisDetails(List<RedisStatus> masters, List<String> problems, List<String> warnings) {
    double threshold = properties.getHealth().getMemoryThreshold();
    Map<String, Object> details = new LinkedHashMap<>();
    for (RedisStatus master : masters) {
      Map<String, Object> node = new LinkedHashMap<>();
      node.put("pingMillis", master.roundTrip().toNanos() / 1_000_000.0);
      node.put("usedMemory", master.usedMemory());
      node.put("maxMemory", master.maxMemory());
      if (master.memoryUsedRatio() >= 0) {
        node.put("memoryUsed", Math.round(master.memoryUsedRatio() * 1000) / 10.0 + "%");
      }
      node.put("maxmemoryPolicy", master.maxmemoryPolicy());
      details.put(master.address(), node);
      if (master.memoryUsedRatio() > threshold) {
        problems.add("Redis at " + master.address() + " uses " + node.get("memoryUsed") + " of its maxmemory"
            + " (threshold " + Math.round(threshold * 100) + "%): it will soon "
            + (master.mayEvict() ? "evict keys, and so jobs" : "refuse new jobs"));
      }
      if (master.mayEvict()) {
        String text = "Redis at " + master.address() + " has maxmemory-policy " + master.maxmemoryPolicy()
            + ": at its memory limit it may evict delayq's keys and lose jobs; set it to noeviction";
        (properties.isRefuseEvictingRedis() ? problems : warnings).add(text);
      }
    }
    return details;
  }

  private Map<String, Object> queueDetails(Set<String> forwarded, List<String> problems, List<String> warnings) {
    Set<String> names = new TreeSet<>(delayq.workerQueues());
    names.addAll(forwarded);
    Set<String> withWorkers = Set.copyOf(names);
    names.addAll(properties.getHealth().getQueues());
    Duration stuckAfter = properties.getHealth().stuckAfter();
    Map<String, Object> details = new LinkedHashMap<>();
    for (String name : names) {
      Map<String, Object> queue = new LinkedHashMap<>();
      details.put(name, queue);
      queue.put("workersHere", withWorkers.contains(name));
      Optional<JobQueue> existing = delayq.existingQueue(name);
      if (existing.isEmpty()) {
        queue.put("exists", false);
        continue;
      }
      QueueStats stats = existing.get().admin().stats();
      boolean stuck = !stats.paused() && stats.oldestDueAge().compareTo(stuckAfter) > 0;
      queue.put("scheduled", stats.scheduled());
      queue.put("due", stats.due());
      queue.put("active", stats.active());
      queue.put("expired", stats.expired());
      queue.put("dead", stats.dead());
      queue.put("paused", stats.paused());
      queue.put("oldestDueAge", stats.oldestDueAge().toString());
      queue.put("stuck", stuck);
      if (stuck) {
        problems.add("queue '" + name + "' is stuck: a job has been due for " + stats.oldestDueAge()
            + " (more than " + stuckAfter + ") and no worker claims it");
      } else if (stats.paused() && stats.due() > 0) {
        warnings.add("queue '" + name + "' is paused with " + stats.due() + " due job(s), the oldest due for "
            + stats.oldestDueAge());
      }
    }
    return details;
  }

  /**
   * Each schedule this application declares, as stored: one read per schedule. One missing from
   * Redis (removed by an operator since the application started) is a warning: it does not fire
   * again until an instance that declares it starts.
   */
  private void scheduleDetails(Health.Builder builder, List<String> warnings) {
    Map<String, List<String>> declared = schedules.get();
    if (declared.isEmpty()) {
      return;
    }
    Map<String, Object> details = new LinkedHashMap<>();
    declared.forEach((queue, names) -> {
      Optional<JobQueue> existing = delayq.existingQueue(queue);
      Map<String, Object> ofQueue = new LinkedHashMap<>();
      for (String name : names) {
        Map<String, Object> node = new LinkedHashMap<>();
        Optional<ScheduleInfo> stored = existing.flatMap(q -> q.schedules().get(name));
        if (stored.isEmpty()) {
          node.put("stored", false);
          warnings.add("schedule '" + name + "' of queue '" + queue + "' is declared here but not stored in Redis"
              + " (removed since the application started?): it fires again once an instance that declares it starts");
        } else {
          ScheduleInfo info = stored.get();
          node.put("stored", true);
          node.put("nextRun", info.nextRun() == null ? null : info.nextRun().toString());
          node.put("paused", info.schedule().paused());
          node.put("lastRun", info.lastRun() == null ? null : info.lastRun().toString());
          node.put("fired", info.fired());
          node.put("skipped", info.skipped());
        }
        ofQueue.put(name, node);
      }
      details.put(queue, ofQueue);
    });
    builder.withDetail("schedules", details);
  }

  private static void forwardingDetails(Health.Builder builder, List<Forwarder> forwarding,
      List<SortedSetBridge> adopting, List<String> problems, List<String> warnings) {
    if (!forwarding.isEmpty()) {
      Map<String, Object> details = new LinkedHashMap<>();
      for (Forwarder forwarder : forwarding) {
        ForwarderStatus status = forwarder.status();
        Map<String, Object> node = new LinkedHashMap<>();
        node.put("state", status.state().name());
        node.put("target", status.target());
        node.put("forwarded", status.forwarded());
        node.put("deadLettered", status.deadLettered());
        node.put("retried", status.retried());
        node.put("inFlight", status.inFlight());
        node.put("lastError", status.lastError());
        node.put("lastErrorAt", status.lastErrorAt() == null ? null : status.lastErrorAt().toString());
        details.put(forwarder.queue(), node);
        String what = "the forwarder of queue '" + forwarder.queue() + "' to " + status.target();
        switch (status.state()) {
          case MISCONFIGURED -> problems.add(what + " is misconfigured and forwards nothing: " + status.lastError());
          case CLOSED -> problems.add(what + " is closed although the application runs");
          case RETRYING -> warnings.add(what + " is retrying: " + status.lastError());
          default -> { }
        }
      }
      builder.withDetail("forwarders", details);
    }
    if (!adopting.isEmpty()) {
      Map<String, Object> details = new LinkedHashMap<>();
      for (SortedSetBridge bridge : adopting) {
        SortedSetBridge.Status status = bridge.status();
        Map<String, Object> node = new LinkedHashMap<>();
        node.put("source", bridge.source());
        node.put("state", status.state().name());
        node.put("scoreUnit", status.totals().unit() == null ? null : status.totals().unit().name());
        node.put("moved", status.totals().moved());
        node.put("merged", status.totals().merged());
        node.put("takenByOthers", status.totals().takenByOthers());
        node.put("hashedIds", status.totals().hashedIds());
        node.put("heldBack", status.totals().heldBack());
        node.put("rejected", status.totals().rejected());
        node.put("remaining", status.totals().remaining());
        node.put("lastPassAt", status.lastPassAt() == null ? null : status.lastPassAt().toString());
        node.put("lastError", status.lastError());
        details.put(bridge.queue(), node);
        String what = "the adoption of " + bridge.source() + " into queue '" + bridge.queue() + "'";
        switch (status.state()) {
          case REFUSING -> problems.add(what + " refuses the source and moves nothing: " + status.lastError());
          case CLOSED -> problems.add(what + " is closed although the application runs");
          case RETRYING -> warnings.add(what + " is retrying: " + status.lastError());
          default -> { }
        }
      }
      builder.withDetail("adoption", details);
    }
  }
}
