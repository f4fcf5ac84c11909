package io.delayq.internal;

/** Told when a job due at {@code dueMillis} (Redis time) was scheduled ahead of a partition's others. */
interface WakeListener {
  void onWake(int partition, long dueMillis);
}
