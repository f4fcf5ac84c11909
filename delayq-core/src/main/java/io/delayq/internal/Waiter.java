package io.delayq.internal;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A sleep that can be cut short. A wake that arrives while nobody waits is remembered, so the next
 * wait returns at once: a notification between "decide to sleep" and "sleep" is never lost.
 */
final class Waiter {
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition woken = lock.newCondition();
  private boolean pending;

  void wake() {
    lock.lock();
    try {
      pending = true;
      woken.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Sleeps up to {@code nanos}, less if woken; returns whether it was woken. */
  boolean await(long nanos) throws InterruptedException {
    lock.lock();
    try {
      long left = nanos;
      while (!pending && left > 0) {
        left = woken.awaitNanos(left);
      }
      boolean wasWoken = pending;
      pending = false;
      return wasWoken;
    } finally {
      lock.unlock();
    }
  }

  boolean await(long amount, TimeUnit unit) throws InterruptedException {
    return await(unit.toNanos(amount));
  }
}
