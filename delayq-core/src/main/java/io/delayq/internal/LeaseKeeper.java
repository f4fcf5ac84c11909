package io.delayq.internal;

import io.delayq.LeaseExpiredException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the leases of handlers that must not lose their job, for as long as they run: those still
 * running while their workers close, and every running handler of workers that keep leases while
 * running ({@link io.delayq.WorkerOptions#keepLeaseWhileRunning()}). Each lease is extended when less than half of it is
 * left, so a handler past its shutdown timeout keeps the job until it returns or the process dies,
 * and no other worker starts it meanwhile. One thread per client, {@code delayq-lease-keeper}.
 */
final class LeaseKeeper implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(LeaseKeeper.class);
  private static final long TICK_MILLIS = 50;

  private final Ticker ticker;
  private final Map<Delivery, Kept> kept = new ConcurrentHashMap<>();
  private ScheduledExecutorService timer;

  /** A lease being kept, and whether an extension is on its way. */
  private static final class Kept {
    final Settling settling;
    final long leaseMillis;
    volatile boolean extending;

    Kept(Settling settling, long leaseMillis) {
      this.settling = settling;
      this.leaseMillis = leaseMillis;
    }
  }

  LeaseKeeper(Ticker ticker) {
    this.ticker = ticker;
  }

  synchronized void keep(Delivery delivery, Settling settling, long leaseMillis) {
    kept.putIfAbsent(delivery, new Kept(settling, leaseMillis));
    if (timer == null) {
      timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "delayq-lease-keeper");
        t.setDaemon(true);
        return t;
      });
      timer.scheduleWithFixedDelay(this::tick, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
    }
  }

  void release(Delivery delivery) {
    kept.remove(delivery);
  }

  private void tick() {
    long now = ticker.nanoTime();
    kept.forEach((delivery, k) -> {
      long left = delivery.leaseEndsNanos() - now;
      if (k.extending || left > TimeUnit.MILLISECONDS.toNanos(k.leaseMillis) / 2) {
        return;
      }
      k.extending = true;
      long sent = ticker.nanoTime();
      k.settling.extendAsync(delivery.id(), delivery.token(), k.leaseMillis).whenComplete((until, error) -> {
        k.extending = false;
        if (error == null) {
          delivery.extended(java.time.Instant.ofEpochMilli(until), sent, k.leaseMillis);
        } else if (Errors.translate(error, "", delivery.queue(), delivery.id(), delivery.token())
            instanceof LeaseExpiredException) {
          kept.remove(delivery);
          log.warn("job '{}' of queue '{}' lost its lease while its handler was still running; another worker"
              + " may run it now", delivery.id(), delivery.queue());
        } else {
          log.debug("extending the lease of job '{}' failed; retrying: {}", delivery.id(), Errors.unwrap(error).toString());
        }
      });
    });
  }

  @Override
  public synchronized void close() {
    kept.clear();
    if (timer != null) {
      timer.shutdownNow();
      timer = null;
    }
  }
}
