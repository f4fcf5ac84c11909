package io.delayq.bench;

import org.HdrHistogram.Histogram;

/**
 * How late deliveries were (handler start minus due time), in microseconds.
 *
 * @param histogram every delivery's lateness; early deliveries are recorded as 0
 * @param early deliveries that started before their due time
 */
public record Lateness(Histogram histogram, long early) {
  long count() {
    return histogram.getTotalCount();
  }

  long p50Micros() {
    return histogram.getValueAtPercentile(50);
  }

  long p99Micros() {
    return histogram.getValueAtPercentile(99);
  }

  long p999Micros() {
    return histogram.getValueAtPercentile(99.9);
  }

  long maxMicros() {
    return histogram.getMaxValue();
  }
}
