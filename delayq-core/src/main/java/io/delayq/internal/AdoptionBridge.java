package io.delayq.internal;

import io.delayq.AdoptionReport;
import io.delayq.DelayqClosedException;
import io.delayq.InvalidRequestException;
import io.delayq.SortedSetBridge;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link SortedSetBridge}: one thread, {@code delayq-adopt-<queue>}, that runs a pass of its
 * {@link Adoption} and then waits a poll interval, until closed. Failures do not end it: it notes
 * them, logs each new one once, and tries again after the interval.
 */
final class AdoptionBridge implements SortedSetBridge {
  private static final Logger log = LoggerFactory.getLogger(AdoptionBridge.class);

  private final Adoption adoption;
  private final Duration closeTimeout;
  private final CountDownLatch stop = new CountDownLatch(1);
  private final Thread thread;
  private volatile State state = State.RUNNING;
  private volatile Instant lastPassAt;
  private volatile String lastError;
  private volatile Instant lastErrorAt;

  private AdoptionBridge(Adoption adoption, Duration closeTimeout) {
    this.adoption = adoption;
    this.closeTimeout = closeTimeout;
    this.thread = new Thread(this::run, "delayq-adopt-" + adoption.queueName());
    thread.setDaemon(true);
  }

  static AdoptionBridge start(Adoption adoption, Duration commandTimeout) {
    AdoptionBridge bridge = new AdoptionBridge(adoption, commandTimeout.plusSeconds(1));
    bridge.thread.start();
    log.info("adopting sorted set '{}' into queue '{}': {}", adoption.source(), adoption.queueName(), adoption.options());
    return bridge;
  }

  private void run() {
    long waitMs = adoption.options().pollInterval().toMillis();
    while (stop.getCount() > 0) {
      try {
        adoption.pass();
        lastPassAt = Instant.now();
        state = State.RUNNING;
      } catch (DelayqClosedException e) {
        break;
      } catch (InvalidRequestException e) {
        failed(State.REFUSING, e);
      } catch (RuntimeException e) {
        failed(State.RETRYING, e);
      }
      try {
        if (stop.await(waitMs, TimeUnit.MILLISECONDS)) {
          break;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    state = State.CLOSED;
  }

  private void failed(State next, RuntimeException e) {
    String message = e.getMessage();
    if (state != next || !Objects.equals(message, lastError)) {
      log.warn("adopting '{}' into queue '{}': {}; trying again every {}", adoption.source(), adoption.queueName(),
          message, adoption.options().pollInterval(), e);
    }
    lastError = message;
    lastErrorAt = Instant.now();
    state = next;
  }

  @Override
  public String source() {
    return adoption.source();
  }

  @Override
  public String queue() {
    return adoption.queueName();
  }

  @Override
  public Status status() {
    AdoptionReport totals = adoption.report();
    return new Status(state, totals, lastPassAt, lastError, lastErrorAt);
  }

  @Override
  public void close() {
    stop.countDown();
    adoption.stop();
    if (Thread.currentThread() == thread) {
      return;
    }
    try {
      // why: a pass stops only between batches; each script either moved its batch or did not
      thread.join(closeTimeout.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (thread.isAlive()) {
      log.warn("the bridge from '{}' to queue '{}' is still finishing a pass after {}", adoption.source(),
          adoption.queueName(), closeTimeout);
    } else {
      state = State.CLOSED;
    }
  }

  @Override
  public String toString() {
    return "SortedSetBridge[" + adoption.source() + " -> " + adoption.queueName() + ", " + state + "]";
  }
}
