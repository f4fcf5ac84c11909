package io.delayq.server.forward;

import com.rabbitmq.client.ConnectionFactory;
import io.delayq.Delayq;
import io.delayq.Forwarder;
import io.delayq.ForwarderStatus;
import io.delayq.JobQueue;
import io.delayq.ListForwarding;
import io.delayq.Page;
import io.delayq.rabbitmq.RabbitForwarder;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs, in this server, a forwarder for every queue whose stored forwarding spec says so, and
 * follows changes: a spec set, changed or removed (by this server's API, another instance's, or
 * the CLI on Redis directly) is picked up at the next refresh, or at once when it came through
 * this server. Several server instances each run one per queue; claims are exclusive, so they
 * share the work and none is a single point of failure.
 */
public final class ForwardSupervisor implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ForwardSupervisor.class);
  /** How often every queue's stored spec is read again: a page of names and one read per queue. */
  public static final Duration DEFAULT_REFRESH = Duration.ofSeconds(5);
  private static final int PAGE = 500;

  private final Delayq delayq;
  private final ConnectionFactory rabbit;
  private final String rabbitSource;
  private final Duration refreshEvery;
  private final Map<String, Entry> running = new ConcurrentHashMap<>();
  /**
   * Closes forwarders off the refresher's thread: a close waits for owed confirms (and a publish
   * the broker blocks holds it longer), which must not hold up every other queue's changes.
   */
  private final java.util.concurrent.ExecutorService closer =
      Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "delayq-forward-closer");
        t.setDaemon(true);
        return t;
      });
  private final Set<java.util.concurrent.Future<?>> closing = ConcurrentHashMap.newKeySet();
  private final Starter starter;
  private final ScheduledExecutorService refresher =
      Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "delayq-forward-supervisor");
        t.setDaemon(true);
        return t;
      });
  private volatile boolean closed;
  private volatile boolean warnedRefresh;

  /** One queue's forwarding in this server: what it was started from, and the forwarder or why there is none. */
  private record Entry(String stored, ForwardSpec spec, Forwarder forwarder, ForwarderStatus refused) {
    ForwarderStatus status() {
      return forwarder != null ? forwarder.status() : refused;
    }
  }

  /** What the API shows for a queue: the spec, and this server's forwarder's status. */
  public record View(ForwardSpec spec, ForwarderStatus status) {}

  /**
   * @param rabbit the connection settings for RabbitMQ targets ({@code --rabbitmq}), or null: a
   *     queue forwarded to RabbitMQ then reports {@link ForwarderStatus.State#MISCONFIGURED}
   * @param rabbitSource where {@code rabbit} came from, for messages
   */
  public ForwardSupervisor(Delayq delayq, ConnectionFactory rabbit, String rabbitSource, Duration refreshEvery) {
    this(delayq, rabbit, rabbitSource, refreshEvery, null);
  }

  /** Makes the forwarder for a spec; the tests' seam. */
  interface Starter {
    Forwarder start(JobQueue queue, ForwardSpec spec);
  }

  ForwardSupervisor(Delayq delayq, ConnectionFactory rabbit, String rabbitSource, Duration refreshEvery, Starter starter) {
    this.starter = starter != null ? starter : this::startForwarder;
    this.delayq = delayq;
    this.rabbit = rabbit;
    this.rabbitSource = rabbitSource;
    this.refreshEvery = refreshEvery;
  }

  /** Reads every queue's spec now, then every refresh interval. */
  public ForwardSupervisor start() {
    long millis = refreshEvery.toMillis();
    refresher.scheduleWithFixedDelay(this::refreshAll, 0, millis, TimeUnit.MILLISECONDS);
    return this;
  }

  /**
   * Applies {@code queue}'s stored spec now (after the API changed it), on the refresher's thread;
   * the future completes once that is done (a forwarder stopped by it has stopped claiming, or has
   * had {@link #CLOSE_INLINE_WAIT} to, and finishes closing in the background).
   */
  public java.util.concurrent.CompletableFuture<Void> refreshSoon(String queue) {
    if (closed) {
      return java.util.concurrent.CompletableFuture.completedFuture(null);
    }
    return java.util.concurrent.CompletableFuture.runAsync(() -> refresh(queue), refresher);
  }

  /**
   * How long a change waits for the forwarder it stops before going on. why: long enough for any
   * forwarder to stop claiming (so a PUT that removes a forwarding is in effect on this server when
   * it is answered), short enough that a close waiting for owed confirms holds up no other queue.
   */
  static final Duration CLOSE_INLINE_WAIT = Duration.ofSeconds(1);

  /** The forwarding of {@code queue} in this server, if it has one. */
  public Optional<View> view(String queue) {
    Entry entry = running.get(queue);
    return entry == null ? Optional.empty() : Optional.of(new View(entry.spec, entry.status()));
  }

  /** Every forwarding this server runs, by queue. */
  public Map<String, View> views() {
    Map<String, View> views = new java.util.TreeMap<>();
    running.forEach((queue, entry) -> views.put(queue, new View(entry.spec, entry.status())));
    return views;
  }

  private void refreshAll() {
    try {
      Set<String> seen = new HashSet<>();
      String cursor = null;
      do {
        Page<String> names = delayq.queueNames(cursor, PAGE);
        for (String name : names.items()) {
          seen.add(name);
          refresh(name);
        }
        cursor = names.nextCursor().orElse(null);
      } while (cursor != null && !closed);
      for (String name : Set.copyOf(running.keySet())) {
        if (!seen.contains(name)) {
          stop(name, "the queue is gone");
        }
      }
      if (warnedRefresh) {
        log.info("forwarding: reading the queues' forwarding specs works again");
        warnedRefresh = false;
      }
    } catch (RuntimeException e) {
      if (!warnedRefresh) {
        warnedRefresh = true;
        log.warn("forwarding: cannot read the queues' forwarding specs ({}); running forwarders carry on, and"
            + " changes are picked up once Redis answers", e.toString());
      }
    }
  }

  private synchronized void refresh(String name) {
    if (closed) {
      return;
    }
    Optional<JobQueue> queue;
    String stored;
    try {
      queue = delayq.existingQueue(name);
      stored = queue.flatMap(q -> q.admin().forwardingSpec()).orElse(null);
    } catch (RuntimeException e) {
      log.debug("forwarding: cannot read the spec of queue '{}': {}", name, e.toString());
      return;
    }
    Entry current = running.get(name);
    if (stored == null) {
      if (current != null) {
        stop(name, "its forwarding was removed");
      }
      return;
    }
    if (current != null && current.stored.equals(stored)) {
      return;
    }
    if (current != null) {
      stop(name, "its forwarding changed");
    }
    running.put(name, start(queue.orElseThrow(), stored));
  }

  private Entry start(JobQueue queue, String stored) {
    ForwardSpec spec;
    try {
      spec = ForwardSpec.fromStored(stored);
    } catch (IllegalStateException e) {
      log.warn("forwarding: queue '{}': {}", queue.name(), e.getMessage());
      return refused(stored, null, "?", e.getMessage());
    }
    try {
      Forwarder forwarder = starter.start(queue, spec);
      log.info("forwarding: queue '{}' → {}", queue.name(), forwarder.target());
      return new Entry(stored, spec, forwarder, null);
    } catch (RuntimeException e) {
      log.warn("forwarding: cannot start the forwarder of queue '{}': {}", queue.name(), e.getMessage());
      return refused(stored, spec, target(spec), e.getMessage());
    }
  }

  private static String target(ForwardSpec spec) {
    return spec instanceof ForwardSpec.Rabbit r ? "rabbitmq:" + r.exchange() + "/" + r.routingKey()
        : "redis-list:" + ((ForwardSpec.RedisList) spec).list();
  }

  private Forwarder startForwarder(JobQueue queue, ForwardSpec spec) {
    if (spec instanceof ForwardSpec.Rabbit r) {
      if (rabbit == null) {
          throw new IllegalStateException("queue '" + queue.name() + "' is forwarded to RabbitMQ, but this server has no"
            + " RabbitMQ connection: start it with --rabbitmq amqp://user:password@host:5672/vhost (DELAYQ_RABBITMQ_URL)");
      }
      return RabbitForwarder.builder(queue, rabbit).exchange(r.exchange()).routingKey(r.routingKey()).start();
    }
    ForwardSpec.RedisList l = (ForwardSpec.RedisList) spec;
    return queue.forwardToList(ListForwarding.toList(l.list()).format(l.format()).build());
  }

  private static Entry refused(String stored, ForwardSpec spec, String target, String why) {
    return new Entry(stored, spec, null,
        new ForwarderStatus(ForwarderStatus.State.MISCONFIGURED, target, 0, 0, 0, 0, why, Instant.now()));
  }

  private void stop(String name, String why) {
    Entry entry = running.remove(name);
    if (entry != null && entry.forwarder != null) {
      log.info("forwarding: stopping the forwarder of queue '{}' ({}): {}", name, entry.forwarder.target(), why);
      Forwarder forwarder = entry.forwarder;
      java.util.concurrent.CompletableFuture<Void> done = new java.util.concurrent.CompletableFuture<>();
      closing.add(done);
      closer.execute(() -> {
        try {
          forwarder.close();
        } catch (RuntimeException e) {
          log.warn("forwarding: closing the forwarder of queue '{}' failed: {}", name, e.toString());
        } finally {
          closing.remove(done);
          done.complete(null);
        }
      });
      try {
        done.get(CLOSE_INLINE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.TimeoutException e) {
        log.info("forwarding: the forwarder of queue '{}' is still closing (waiting for its target); it"
            + " finishes in the background", name);
      } catch (java.util.concurrent.ExecutionException e) {
        // logged by the closer
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Longest the server's shutdown waits for its forwarders to hand back what was not confirmed. */
  static final Duration CLOSE_WAIT = Duration.ofSeconds(60);

  /** Stops every forwarder, all at once, and waits for them: jobs not yet passed on stay in delayq. */
  @Override
  public void close() {
    synchronized (this) {
      closed = true;
      refresher.shutdownNow();
      for (String name : Set.copyOf(running.keySet())) {
        stop(name, "the server stops");
      }
    }
    long deadline = System.nanoTime() + CLOSE_WAIT.toNanos();
    for (java.util.concurrent.Future<?> pending : Set.copyOf(closing)) {
      try {
        pending.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (java.util.concurrent.TimeoutException e) {
        log.warn("forwarding: a forwarder did not close within {} s; its unconfirmed jobs go back when their"
            + " leases end", CLOSE_WAIT.toSeconds());
        break;
      } catch (java.util.concurrent.ExecutionException e) {
        // logged by the closer
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    closer.shutdown();
  }

  /** Forwarders being closed right now; for tests. */
  int closing() {
    return closing.size();
  }

  /** The RabbitMQ URL's source, for the startup log. */
  public String rabbitSource() {
    return rabbitSource;
  }
}
