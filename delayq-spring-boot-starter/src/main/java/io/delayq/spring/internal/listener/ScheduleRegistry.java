package io.delayq.spring.internal.listener;

import io.delayq.Delayq;
import io.delayq.DelayqException;
import io.delayq.JobHandler;
import io.delayq.Schedule;
import io.delayq.ScheduleInfo;
import io.delayq.Schedules;
import io.delayq.WorkerOptions;
import io.delayq.spring.PayloadConversionException;
import io.delayq.spring.autoconfigure.DelayqListenerProperties;
import io.delayq.spring.listener.DelayqListenerRegistry;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * The schedules this application declares ({@code @DelayqScheduled} methods and {@code
 * delayq.schedules.<name>.*}), and their part in the context's lifecycle. Started before the
 * forwarders and listeners: routes each queue's occurrences to their methods (through the
 * queue's listener container, or a container of its own on a queue without a listener; either
 * keeps leases while methods run), then stores every schedule in Redis. Stopping does nothing: a schedule lives in Redis, and fires as
 * long as any instance works its queue.
 */
public final class ScheduleRegistry implements SmartLifecycle {
  private static final Logger log = LoggerFactory.getLogger(ScheduleRegistry.class);
  static final String CONTAINER_PREFIX = "schedules:";

  /**
   * One declared schedule.
   *
   * @param source what declared it, as messages name it: the method, or the property prefix
   * @param handler the method's handler, or {@code null} when the queue's listener runs it
   */
  record Declared(String queue, Schedule schedule, String source, JobHandler handler) {}

  private final Delayq delayq;
  // why: looked up when started, not injected: the lifecycle starts a bean's dependencies first,
  // and the listeners must start after their routes are set
  private final Supplier<ListenerRegistry> listeners;
  private final DelayqListenerProperties listenerProperties;
  private final boolean virtualThreads;
  private final Consumer<ScheduleRegistry> beforeStart;
  /** By queue, then by name. */
  private final Map<String, Map<String, Declared>> declared = new TreeMap<>();
  private boolean routed;
  private volatile boolean running;

  /**
   * @param beforeStart checks made once every listener is registered (that each schedule of the
   *     properties has a listener or forwarder on its queue); it throws to fail the start
   */
  public ScheduleRegistry(Delayq delayq, Supplier<ListenerRegistry> listeners, DelayqListenerProperties listenerProperties,
      boolean virtualThreads, Consumer<ScheduleRegistry> beforeStart) {
    this.delayq = delayq;
    this.listeners = listeners;
    this.listenerProperties = listenerProperties;
    this.virtualThreads = virtualThreads;
    this.beforeStart = beforeStart;
  }

  /** A schedule of the properties, whose occurrences the queue's listener (or forwarder) takes. */
  public synchronized void declare(String queue, Schedule schedule, String property) {
    Declared other = declared.getOrDefault(queue, Map.of()).get(schedule.name());
    if (other != null) {
      throw new IllegalStateException(property + " declares schedule '" + schedule.name() + "' of queue '" + queue
          + "', and so does " + other.source());
    }
    declared.computeIfAbsent(queue, q -> new TreeMap<>()).put(schedule.name(), new Declared(queue, schedule, property,
        null));
  }

  synchronized void declare(String queue, Schedule schedule, String method, JobHandler handler) {
    Declared other = declared.getOrDefault(queue, Map.of()).get(schedule.name());
    if (other != null) {
      throw new ListenerDefinitionException(method, "schedule '" + schedule.name() + "' of queue '" + queue
          + "' is declared by " + other.source() + " already; give each schedule its own name (the name attribute)");
    }
    declared.computeIfAbsent(queue, q -> new TreeMap<>()).put(schedule.name(), new Declared(queue, schedule, method,
        handler));
  }

  /** The schedules this application declares, by queue; from properties ones too. */
  public synchronized Map<String, List<String>> names() {
    Map<String, List<String>> names = new LinkedHashMap<>();
    declared.forEach((queue, byName) -> names.put(queue, List.copyOf(byName.keySet())));
    return names;
  }

  /** The queues whose schedules come from properties only, with the property prefix of one of them. */
  public synchronized Map<String, String> propertyQueues() {
    Map<String, String> queues = new TreeMap<>();
    declared.forEach((queue, byName) -> byName.values().stream().filter(d -> d.handler() == null).findFirst()
        .ifPresent(d -> queues.put(queue, d.source())));
    return queues;
  }

  @Override
  public synchronized void start() {
    if (running) {
      return;
    }
    if (!routed) {
      beforeStart.accept(this);
      route();
      routed = true;
    }
    store();
    running = true;
  }

  private void route() {
    declared.forEach((queue, byName) -> {
      Map<String, JobHandler> methods = new LinkedHashMap<>();
      byName.values().stream().filter(d -> d.handler() != null).forEach(d -> methods.put(d.schedule().name(),
          d.handler()));
      if (methods.isEmpty()) {
        return;
      }
      String sources = byName.values().stream().filter(d -> d.handler() != null).map(Declared::source)
          .collect(Collectors.joining(", "));
      Optional<ListenerContainer> listener = listeners.get().onQueue(queue);
      if (listener.isPresent()) {
        if (!listener.get().autoStartup()) {
          throw ListenerDefinitionException.withAction(sources, "the workers of queue '" + queue + "' are those of"
              + " @DelayqListener " + listener.get().listener() + ", which does not start with the application (its autoStartup, or"
              + " delayq.listener.auto-startup, is false), so the occurrences would wait until someone starts it",
              "Let that listener start with the application, or give the @DelayqScheduled method(s) a queue of"
              + " their own");
        }
        listener.get().routeOccurrences(methods);
        return;
      }
      WorkerOptions options = ListenerMethodProcessor.defaults(listenerProperties).toBuilder()
          .nonRetryable(PayloadConversionException.class)
          .keepLeaseWhileRunning(true)
          .build();
      listeners.get().register(new ListenerContainer(CONTAINER_PREFIX + queue, queue, sources, delayq,
          new OccurrenceRouter(queue, methods, null, options.nonRetryable()), options, true, virtualThreads));
    });
  }

  private void store() {
    for (Map<String, Declared> byName : declared.values()) {
      for (Declared d : byName.values()) {
        store(d);
      }
    }
    declared.forEach((queue, byName) -> {
      try {
        Set<String> unknown = new TreeSet<>();
        for (ScheduleInfo info : delayq.queue(queue).schedules().list()) {
          if (!byName.containsKey(info.name())) {
            unknown.add(info.name());
          }
        }
        if (!unknown.isEmpty()) {
          log.warn("queue '{}' holds schedule(s) {} that this application does not declare; they keep firing (a"
              + " schedule is never removed by itself, since instances of another version may still declare it)."
              + " Remove one that nothing declares any more with Schedules.remove(name)", queue, unknown);
        }
      } catch (DelayqException e) {
        log.debug("could not list the schedules of queue '{}'", queue, e);
      }
    });
  }

  /**
   * Stores one schedule, unless Redis holds the same definition. One paused in Redis (by an
   * operator) stays paused: a restart or a new instance never resumes it.
   */
  private void store(Declared d) {
    Schedule wanted = d.schedule();
    try {
      Schedules schedules = delayq.queue(d.queue()).schedules();
      Optional<Schedule> stored = schedules.get(wanted.name()).map(ScheduleInfo::schedule);
      if (stored.isPresent() && stored.get().paused() && !wanted.paused()) {
        log.info("schedule '{}' of queue '{}' is paused in Redis and stays paused; resume it with"
            + " Schedules.resume(name)", wanted.name(), d.queue());
        wanted = wanted.withPaused(true);
      }
      if (stored.isPresent() && stored.get().equals(wanted)) {
        return;
      }
      ScheduleInfo info = schedules.set(wanted);
      log.info("stored schedule '{}' of queue '{}' ({}), next run {}", wanted.name(), d.queue(), d.source(),
          info.nextRun());
    } catch (RuntimeException e) {
      throw new IllegalStateException("could not store schedule '" + wanted.name() + "' of queue '" + d.queue()
          + "', declared by " + d.source() + ": " + e.getMessage(), e);
    }
  }

  /** Nothing to stop: the schedules stay in Redis, and the containers stop with the listeners. */
  @Override
  public void stop() {
    running = false;
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  /** Before the forwarders (whose check sees the containers made here) and the listeners. */
  @Override
  public int getPhase() {
    return DelayqListenerRegistry.PHASE - 2;
  }
}
