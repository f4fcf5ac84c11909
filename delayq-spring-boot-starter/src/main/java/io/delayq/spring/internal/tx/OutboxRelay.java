package io.delayq.spring.internal.tx;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Runs {@link Outbox#relayOnce()} on one background thread, {@code delayq-outbox-relay}, every
 * relay interval, and again at once while rounds come back full, up to ten rounds in a row so that
 * a backlog is worked off in bounded steps. Every instance of the application runs one: rows are
 * locked, so relays never apply the same row at the same time, and one instance left running is
 * enough. Stops before the Delayq client closes (it is a lifecycle bean of the latest phase). A
 * missing table (or an unreachable database) at startup is logged, not fatal.
 */
public final class OutboxRelay implements SmartLifecycle {
  private static final Logger LOG = LoggerFactory.getLogger(OutboxRelay.class);
  private static final int ROUNDS_PER_TICK = 10;

  private final Outbox outbox;
  private final AtomicLong rounds = new AtomicLong();
  private ScheduledExecutorService executor;
  private boolean failing;

  public OutboxRelay(Outbox outbox) {
    this.outbox = outbox;
  }

  @Override
  public synchronized void start() {
    if (executor != null) {
      return;
    }
    String problem = outbox.checkTable();
    if (problem != null) {
      // why: not fatal: the application may not write to delayq in transactions at all, and a
      // write that does fails with this same advice; the relay starts working once the table is there
      LOG.warn("delayq outbox: {}", problem);
      failing = true;
    }
    executor = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "delayq-outbox-relay");
      t.setDaemon(true);
      return t;
    });
    long interval = outbox.settings().relayInterval().toMillis();
    executor.scheduleWithFixedDelay(this::tick, interval, interval, TimeUnit.MILLISECONDS);
  }

  @Override
  public void stop() {
    ScheduledExecutorService running;
    synchronized (this) {
      running = executor;
      executor = null;
    }
    if (running == null) {
      return;
    }
    running.shutdown();
    try {
      // why: a round holds row locks while it calls Redis; let it finish and commit
      if (!running.awaitTermination(30, TimeUnit.SECONDS)) {
        LOG.warn("delayq outbox: the relay's round did not end within 30 s; stopping it");
        running.shutdownNow();
      }
    } catch (InterruptedException e) {
      running.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public synchronized boolean isRunning() {
    return executor != null;
  }

  /** Rounds completed so far, for tests and diagnostics. */
  public long rounds() {
    return rounds.get();
  }

  private void tick() {
    try {
      for (int i = 0; i < ROUNDS_PER_TICK; i++) {
        int taken = outbox.relayOnce();
        rounds.incrementAndGet();
        if (failing) {
          failing = false;
          LOG.info("delayq outbox: the relay works again");
        }
        if (taken < outbox.settings().batchSize()) {
          return;
        }
      }
    } catch (Exception e) {
      rounds.incrementAndGet();
      // why: one warning per outage, not one per round
      if (!failing) {
        failing = true;
        LOG.warn("delayq outbox: a relay round failed ({}); the rows stay and are tried every {}",
            e.toString(), outbox.settings().relayInterval(), e);
      } else {
        LOG.debug("delayq outbox: a relay round failed again", e);
      }
    }
  }
}
