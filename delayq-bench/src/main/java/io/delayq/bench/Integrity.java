package io.delayq.bench;

/**
 * Whether every job arrived once: counted by id.
 *
 * @param expected jobs the scenario put in
 * @param lost jobs never delivered (or, where nothing is consumed, missing from Redis)
 * @param duplicates deliveries beyond the first of a job (or, where nothing is consumed, extra
 *     entries in Redis)
 * @param unexpected deliveries of jobs that should not have been delivered at all (not due yet, or
 *     unknown ids)
 */
public record Integrity(long expected, long lost, long duplicates, long unexpected) {
  static final Integrity NONE = new Integrity(0, 0, 0, 0);

  /** Integrity of a run that stores jobs without consuming them: compares what Redis holds. */
  static Integrity stored(long expected, long stored) {
    return new Integrity(expected, Math.max(0, expected - stored), Math.max(0, stored - expected), 0);
  }

  boolean clean() {
    return lost == 0 && duplicates == 0 && unexpected == 0;
  }

  Integrity plus(Integrity other) {
    return new Integrity(expected + other.expected, lost + other.lost,
        duplicates + other.duplicates, unexpected + other.unexpected);
  }
}
