package io.delayq.server.demo;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * How late deliveries were: the time a handler started minus the job's due time, in microseconds.
 * Safe to record into from many handler threads at once.
 */
public final class LatenessStats {
  /** Three significant digits: 0.1% resolution, plenty for percentiles printed to 0.1 ms. */
  private static final int SIGNIFICANT_DIGITS = 3;

  private final Recorder recorder = new Recorder(SIGNIFICANT_DIGITS);
  private final Histogram total = new Histogram(SIGNIFICANT_DIGITS);
  private final LongAdder early = new LongAdder();

  /**
   * Records one delivery.
   *
   * @return the lateness in microseconds; negative when the job was delivered before it was due
   */
  public long record(Instant due, Instant deliveredAt) {
    long micros = Duration.between(due, deliveredAt).toNanos() / 1_000;
    if (micros < 0) {
      early.increment();
      // why: a histogram holds no negative values; the early count is what reports these
      recorder.recordValue(0);
    } else {
      recorder.recordValue(micros);
    }
    return micros;
  }

  /** Deliveries recorded before their due time. */
  public long early() {
    return early.sum();
  }

  /** What has been recorded so far. */
  public synchronized Summary summary() {
    total.add(recorder.getIntervalHistogram());
    return new Summary(
        total.getTotalCount(),
        total.getValueAtPercentile(50),
        total.getValueAtPercentile(99),
        total.getMaxValue(),
        early());
  }

  /**
   * Lateness figures, in microseconds.
   *
   * @param count deliveries recorded
   * @param p50Micros median lateness
   * @param p99Micros 99th percentile
   * @param maxMicros the largest lateness
   * @param early deliveries before their due time (recorded as 0 in the percentiles)
   */
  public record Summary(long count, long p50Micros, long p99Micros, long maxMicros, long early) {}
}
