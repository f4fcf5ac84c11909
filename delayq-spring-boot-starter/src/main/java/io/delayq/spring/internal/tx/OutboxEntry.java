package io.delayq.spring.internal.tx;

/**
 * One row of the outbox table: a write recorded by a transaction, waiting to be applied to Redis.
 *
 * @param seq the row's number; rows for one job are applied in this order
 * @param op {@link #SCHEDULE}, {@link #CANCEL} or {@link #RESCHEDULE}
 * @param idGenerated whether the id was generated at the call, and so is known to no other write
 * @param payload the payload of a schedule, else null
 * @param dueMs the due time of a schedule or reschedule, epoch ms
 * @param keep whether a schedule is applied with {@code KEEP} (a generated id, or the caller's
 *     choice); otherwise {@code REPLACE}
 * @param relayAttempts how many times applying it was put off
 */
record OutboxEntry(
    long seq,
    char op,
    String queue,
    String jobId,
    boolean idGenerated,
    byte[] payload,
    boolean json,
    long dueMs,
    int maxAttempts,
    boolean keep,
    long createdMs,
    int relayAttempts) {
  static final char SCHEDULE = 'S';
  static final char CANCEL = 'C';
  static final char RESCHEDULE = 'R';

  String key() {
    return queue + '\u0000' + jobId;
  }

  @Override
  public String toString() {
    String what = op == SCHEDULE ? "schedule" : op == CANCEL ? "cancel" : "reschedule";
    return what + " of job '" + jobId + "' in queue '" + queue + "' (outbox row " + seq + ")";
  }
}
