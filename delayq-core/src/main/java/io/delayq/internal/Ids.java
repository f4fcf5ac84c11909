package io.delayq.internal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.UUID;
import java.util.zip.CRC32;

/** Job ids: generating them, and mapping each to its partition. */
public final class Ids {
  private static final Base64.Encoder URL_SAFE = Base64.getUrlEncoder().withoutPadding();

  private Ids() {}

  /** A random 122-bit id in 22 URL-safe characters: unique across machines without coordination. */
  public static String generate() {
    UUID uuid = UUID.randomUUID();
    ByteBuffer b = ByteBuffer.allocate(16);
    b.putLong(uuid.getMostSignificantBits()).putLong(uuid.getLeastSignificantBits());
    return URL_SAFE.encodeToString(b.array());
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
