package io.delayq.bench;

/** What a contender's workers call for every job they get. */
@FunctionalInterface
public interface DeliveryHandler {
  /**
   * One delivery.
   *
   * @param index the job's index ({@link Job#index()})
   * @param dueMicros when the job was due, epoch microseconds
   * @param startMicros when the handler started, epoch microseconds (read first thing on delivery)
   */
  void delivered(int index, long dueMicros, long startMicros);
}
