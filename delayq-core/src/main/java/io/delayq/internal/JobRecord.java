package io.delayq.internal;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * The stored form of a job: {@code "2|<policy>|<maxAttempts>|<createdMs>|"} followed by the payload
 * bytes, in one hash field; policy is {@code k} for a job scheduled with {@code KEEP} (its id is
 * remembered for the idempotency window once it finishes) and {@code r} otherwise. A text header
 * keeps it readable from Lua (which needs maxAttempts and the policy) and from redis-cli; the
 * payload is never parsed. Records of delayq 0.1, {@code "1|<maxAttempts>|<createdMs>|"}, are read
 * as {@code r}. A {@code j} right after the creation time ({@code "2|r|5|1700000000000j|"}) marks a
 * payload that is JSON text (scheduled as a JSON value): there, because no script reads that field.
 *
 * <p>A job scheduled under an observation that wrote trace headers is stored with version {@code 3}
 * and one more field before the payload, the headers form-encoded ({@code
 * "3|r|5|1700000000000|traceparent=00-…-01|"}; see {@link TraceHeaders}); every other job keeps
 * version 2, which older delayq reads. Scripts read the two versions alike.
 */
public record JobRecord(
    int maxAttempts, long createdMillis, boolean keep, byte[] payload, boolean json, TraceHeaders trace) {
  private static final byte SEP = '|';
  private static final byte JSON = 'j';

  public JobRecord {
    Objects.requireNonNull(trace, "trace");
  }

  public JobRecord(int maxAttempts, long createdMillis, boolean keep, byte[] payload, boolean json) {
    this(maxAttempts, createdMillis, keep, payload, json, TraceHeaders.NONE);
  }

  public JobRecord(int maxAttempts, long createdMillis, boolean keep, byte[] payload) {
    this(maxAttempts, createdMillis, keep, payload, false);
  }

  public byte[] encode() {
    boolean traced = !trace.isEmpty();
    byte[] header = ((traced ? "3|" : "2|") + (keep ? "k|" : "r|") + maxAttempts + "|" + createdMillis + (json ? "j|" : "|"))
        .getBytes(StandardCharsets.US_ASCII);
    byte[] traceField = trace.encoded();
    int payloadAt = traced ? header.length + traceField.length + 1 : header.length;
    byte[] out = Arrays.copyOf(header, payloadAt + payload.length);
    if (traced) {
      System.arraycopy(traceField, 0, out, header.length, traceField.length);
      out[payloadAt - 1] = SEP;
    }
    System.arraycopy(payload, 0, out, payloadAt, payload.length);
    return out;
  }

  public static JobRecord decode(byte[] stored) {
    byte version = stored.length > 0 ? stored[0] : 0;
    if (stored.length < 6 || (version != '1' && version != '2' && version != '3') || stored[1] != SEP) {
      throw new IllegalStateException(
          "stored job record has an unknown format (first bytes "
              + new String(stored, 0, Math.min(stored.length, 16), StandardCharsets.ISO_8859_1)
              + "); was it written by a newer delayq?");
    }
    int from = 2;
    boolean keep = false;
    if (version != '1') {
      if ((stored[2] != 'k' && stored[2] != 'r') || stored[3] != SEP) {
        throw new IllegalStateException("stored job record has an unknown duplicate policy in its header");
      }
      keep = stored[2] == 'k';
      from = 4;
    }
    int second = indexOf(stored, from);
    int third = indexOf(stored, second + 1);
    int maxAttempts = (int) parseLong(stored, from, second);
    boolean json = third > second + 1 && stored[third - 1] == JSON;
    long created = parseLong(stored, second + 1, json ? third - 1 : third);
    TraceHeaders trace = TraceHeaders.NONE;
    int payloadAt = third + 1;
    if (version == '3') {
      int fourth = indexOf(stored, third + 1);
      trace = TraceHeaders.decode(stored, third + 1, fourth);
      payloadAt = fourth + 1;
    }
    return new JobRecord(maxAttempts, created, keep, Arrays.copyOfRange(stored, payloadAt, stored.length), json, trace);
  }

  private static int indexOf(byte[] b, int from) {
    for (int i = from; i < b.length; i++) {
      if (b[i] == SEP) {
        return i;
      }
    }
    throw new IllegalStateException("stored job record has a truncated header");
  }

  private static long parseLong(byte[] b, int from, int to) {
    long v = 0;
    for (int i = from; i < to; i++) {
      v = v * 10 + (b[i] - '0');
    }
    return v;
  }
}
