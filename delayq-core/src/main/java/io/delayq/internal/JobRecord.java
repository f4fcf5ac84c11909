package io.delayq.internal;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The stored form of a job: {@code "2|<policy>|<maxAttempts>|<createdMs>|"} followed by the payload
 * bytes, in one hash field; policy is {@code k} for a job scheduled with {@code KEEP} (its id is
 * remembered for the idempotency window once it finishes) and {@code r} otherwise. A text header
 * keeps it readable from Lua (which needs maxAttempts and the policy) and from redis-cli; the
 * payload is never parsed. Records of delayq 0.1, {@code "1|<maxAttempts>|<createdMs>|"}, are read
 * as {@code r}. A {@code j} right after the creation time ({@code "2|r|5|1700000000000j|"}) marks a
 * payload that is JSON text (scheduled as a JSON value): there, because no script reads that field.
 */
public record JobRecord(int maxAttempts, long createdMillis, boolean keep, byte[] payload, boolean json) {
  private static final byte SEP = '|';
  private static final byte JSON = 'j';

  public JobRecord(int maxAttempts, long createdMillis, boolean keep, byte[] payload) {
    this(maxAttempts, createdMillis, keep, payload, false);
  }

  public byte[] encode() {
    byte[] header = ((keep ? "2|k|" : "2|r|") + maxAttempts + "|" + createdMillis + (json ? "j|" : "|"))
        .getBytes(StandardCharsets.US_ASCII);
    byte[] out = Arrays.copyOf(header, header.length + payload.length);
    System.arraycopy(payload, 0, out, header.length, payload.length);
    return out;
  }

  public static JobRecord decode(byte[] stored) {
    if (stored.length < 6 || (stored[0] != '1' && stored[0] != '2') || stored[1] != SEP) {
      throw new IllegalStateException(
          "stored job record has an unknown format (first bytes "
              + new String(stored, 0, Math.min(stored.length, 16), StandardCharsets.ISO_8859_1)
              + "); was it written by a newer delayq?");
    }
    int from = 2;
    boolean keep = false;
    if (stored[0] == '2') {
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
    return new JobRecord(maxAttempts, created, keep, Arrays.copyOfRange(stored, third + 1, stored.length), json);
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
