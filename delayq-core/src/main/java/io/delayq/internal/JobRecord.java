package io.delayq.internal;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The stored form of a job: {@code "1|<maxAttempts>|<createdMs>|"} followed by the payload bytes,
 * in one hash field. A text header keeps it readable from Lua (which needs maxAttempts) and from
 * redis-cli; the payload is never parsed.
 */
public record JobRecord(int maxAttempts, long createdMillis, byte[] payload) {
  private static final byte FORMAT = '1';
  private static final byte SEP = '|';

  public byte[] encode() {
    byte[] header =
        ("1|" + maxAttempts + "|" + createdMillis + "|").getBytes(StandardCharsets.US_ASCII);
    byte[] out = Arrays.copyOf(header, header.length + payload.length);
    System.arraycopy(payload, 0, out, header.length, payload.length);
    return out;
  }

  public static JobRecord decode(byte[] stored) {
    if (stored.length < 6 || stored[0] != FORMAT || stored[1] != SEP) {
      throw new IllegalStateException(
          "stored job record has an unknown format (first bytes "
              + new String(stored, 0, Math.min(stored.length, 16), StandardCharsets.ISO_8859_1)
              + "); was it written by a newer delayq?");
    }
    int second = indexOf(stored, 2);
    int third = indexOf(stored, second + 1);
    int maxAttempts = (int) parseLong(stored, 2, second);
    long created = parseLong(stored, second + 1, third);
    return new JobRecord(maxAttempts, created, Arrays.copyOfRange(stored, third + 1, stored.length));
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
