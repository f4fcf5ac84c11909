package io.delayq.server.http;

import io.delayq.Delayq;

/** Largest request bodies read, per kind of call; a larger one is answered 413 without being buffered. */
final class BodyLimits {
  /** Largest payload, in bytes: the core's default {@code maxPayloadBytes}, which the server uses. */
  static final int PAYLOAD_BYTES = Delayq.Builder.DEFAULT_MAX_PAYLOAD_BYTES;
  /**
   * One job: a largest payload sent as base64 (4/3 of it) plus the id and the other fields, with
   * room to spare.
   */
  static final int JOB_BYTES = PAYLOAD_BYTES + PAYLOAD_BYTES / 2;
  /** A batch of jobs. */
  static final int BATCH_BYTES = 16 * 1024 * 1024;
  /**
   * A settle call: 1000 settlements, each with an id of up to 256 bytes (6 times that if sent
   * escaped) and an error text of which 2,000 characters are kept, with room to spare.
   */
  static final int SETTLE_BYTES = 8 * 1024 * 1024;
  /** Every other body (ack, nack, lease, reschedule, queue settings). */
  static final int SMALL_BYTES = 64 * 1024;
  /**
   * How much of an over-long body is read and thrown away before answering 413, so that a client
   * still sending sees the answer rather than a reset connection; beyond it the connection is closed.
   */
  static final long DISCARD_BYTES = 8L * 1024 * 1024;

  private BodyLimits() {}
}
