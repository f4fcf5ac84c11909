package io.delayq.internal;

/**
 * What happens to the jobs of one queue in this client, told to its meters. Every call is cheap
 * and never throws; {@link #NONE} ignores them all (no meter registry given). Each event is counted
 * by the one client it happened in, so sums over all clients are exact.
 */
public interface QueueMeters {
  QueueMeters NONE = new QueueMeters() {};

  /** A schedule call's answers: jobs created, replaced (same id, REPLACE) and kept (same id, KEEP). */
  default void scheduled(int created, int replaced, int kept) {}

  /**
   * A job leased by a claim, {@code latenessMicros} after it was due: claim time minus due time,
   * both by the clock of the Redis node that holds the job.
   */
  default void delivered(long latenessMicros) {}

  default void acked(int jobs) {}

  /** A delivery failed with attempts left and was scheduled again. */
  default void retried() {}

  /** Jobs buried in the dead-letter set: a failed last attempt, or a lease that ended on it. */
  default void dead(int jobs) {}

  /** Deliveries handed back uncounted (a closing worker, a claim nobody waited for, {@code release}). */
  default void released(int jobs) {}

  /**
   * Expired leases recovered by this client's claims that had attempts left and were scheduled
   * again (the others are {@link #dead}); part of {@link #leasesExpired}.
   */
  default void redelivered(int jobs) {}

  /** Leases that ended without an ack and were recovered by this client's claims. */
  default void leasesExpired(int leases) {}

  /** A handler of this client's workers returned ({@code success}) or threw, after {@code nanos}. */
  default void handled(long nanos, boolean success) {}

  /** Marks the queue as used now, so its meters are kept. */
  default void touch() {}

  /** Whether these meters were dropped (their queue went unused while others were used); get new ones. */
  default boolean retired() {
    return false;
  }

  /** Both: every event told to each, {@link #retired()} as {@code first} says (the Micrometer meters). */
  static QueueMeters both(QueueMeters first, QueueMeters second) {
    if (second == NONE) {
      return first;
    }
    if (first == NONE) {
      return second;
    }
    return new QueueMeters() {
      @Override
      public void scheduled(int created, int replaced, int kept) {
        first.scheduled(created, replaced, kept);
        second.scheduled(created, replaced, kept);
      }

      @Override
      public void delivered(long latenessMicros) {
        first.delivered(latenessMicros);
        second.delivered(latenessMicros);
      }

      @Override
      public void acked(int jobs) {
        first.acked(jobs);
        second.acked(jobs);
      }

      @Override
      public void retried() {
        first.retried();
        second.retried();
      }

      @Override
      public void redelivered(int jobs) {
        first.redelivered(jobs);
        second.redelivered(jobs);
      }

      @Override
      public void dead(int jobs) {
        first.dead(jobs);
        second.dead(jobs);
      }

      @Override
      public void released(int jobs) {
        first.released(jobs);
        second.released(jobs);
      }

      @Override
      public void leasesExpired(int leases) {
        first.leasesExpired(leases);
        second.leasesExpired(leases);
      }

      @Override
      public void handled(long nanos, boolean success) {
        first.handled(nanos, success);
        second.handled(nanos, success);
      }

      @Override
      public void touch() {
        first.touch();
        second.touch();
      }

      @Override
      public boolean retired() {
        return first.retired();
      }
    };
  }
}
