package io.delayq.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Counts of one minute, added to by the events of a client and drained by its history flush.
 * Lock-free: an event adds to a slot; a drain takes each slot's value and leaves zero, so an event
 * that lands during a drain counts in this flush or the next, never twice nor never.
 */
final class HistoryCounts {
  static final int SCHEDULED = 0;
  static final int DELIVERED = 1;
  static final int ACKED = 2;
  static final int RETRIED = 3;
  static final int DEAD = 4;
  private static final int LATENESS = 5;
  private static final String[] FIELDS = new String[LATENESS + HistoryFields.LATENESS_BUCKETS];

  static {
    FIELDS[SCHEDULED] = HistoryFields.SCHEDULED;
    FIELDS[DELIVERED] = HistoryFields.DELIVERED;
    FIELDS[ACKED] = HistoryFields.ACKED;
    FIELDS[RETRIED] = HistoryFields.RETRIED;
    FIELDS[DEAD] = HistoryFields.DEAD;
    for (int i = 0; i < HistoryFields.LATENESS_BUCKETS; i++) {
      FIELDS[LATENESS + i] = HistoryFields.lateness(i);
    }
  }

  private final AtomicLongArray slots = new AtomicLongArray(FIELDS.length);

  void add(int slot, long n) {
    if (n > 0) {
      slots.addAndGet(slot, n);
    }
  }

  void addLateness(int bucket) {
    slots.incrementAndGet(LATENESS + bucket);
  }

  /** Takes every count, leaving zeros: field, count pairs of the non-zero ones, or null when all were zero. */
  long[] drain() {
    long[] taken = null;
    for (int i = 0; i < FIELDS.length; i++) {
      if (slots.get(i) != 0) {
        long v = slots.getAndSet(i, 0);
        if (v != 0) {
          if (taken == null) {
            taken = new long[FIELDS.length];
          }
          taken[i] = v;
        }
      }
    }
    return taken;
  }

  static int slotCount() {
    return FIELDS.length;
  }

  /** The script arguments for {@code taken}: field, increment, ... for the non-zero ones. */
  static List<byte[]> arguments(long[] taken) {
    List<byte[]> args = new ArrayList<>();
    for (int i = 0; i < taken.length; i++) {
      if (taken[i] != 0) {
        args.add(Keys.bytes(FIELDS[i]));
        args.add(QueueContext.number(taken[i]));
      }
    }
    return args;
  }
}
