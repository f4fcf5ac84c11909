package io.delayq.internal;

/** Told when a job due at {@code dueMillis} (Redis time) was scheduled ahead of a partition's others. */
interface WakeListener {
  void onWake(int partition, long dueMillis);

  /**
   * The subscription was (re)confirmed: wake messages published while it was away reached nobody,
   * so any partition may hold work announced in the gap. The default treats it as a wake-up.
   */
  default void onSubscribed() {
    onWake(0, 0);
  }
}
