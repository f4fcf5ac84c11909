package io.delayq.internal;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.zip.CRC32;

/** Job ids: generating them, and mapping each to its partition. */
public final class Ids {
  private static final Base64.Encoder URL_SAFE = Base64.getUrlEncoder().withoutPadding();
  private static final SecureRandom RANDOM = new SecureRandom();

  private Ids() {}

  /**
   * A random 95-bit id in 16 URL-safe characters: unique across machines without coordination (a
   * collision becomes likely only after some 10^14 ids), and short, since Redis stores each id twice.
   * It starts with a letter, so that a shell or a command-line parser never takes it for an option
   * (a leading {@code -}) as it would in one id of 32.
   */
  public static String generate() {
    byte[] bits = new byte[12];
    RANDOM.nextBytes(bits);
    // why: a clear top bit puts the first character among the first 32 of the alphabet: A-Z, a-f
    bits[0] &= 0x7f;
    return URL_SAFE.encodeToString(bits);
  }

  /**
   * CRC-32 of the id's UTF-8 bytes, modulo the partition count: stable, cheap, and easy to
   * reproduce in any language that talks to the same queue.
   */
  public static int partitionOf(String id, int partitions) {
    if (partitions == 1) {
      return 0;
    }
    CRC32 crc = new CRC32();
    crc.update(id.getBytes(StandardCharsets.UTF_8));
    return (int) (crc.getValue() % partitions);
  }
}
