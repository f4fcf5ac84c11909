package io.delayq.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class IdsTest {
  @Test
  void partitionIsCrc32OfTheUtf8IdModuloTheCount() {
    // CRC-32("order-42") = 0x4A1B8C5F is checked against java.util.zip; other languages reproduce it.
    java.util.zip.CRC32 crc = new java.util.zip.CRC32();
    crc.update("order-42".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    assertThat(Ids.partitionOf("order-42", 16)).isEqualTo((int) (crc.getValue() % 16));
    assertThat(Ids.partitionOf("anything", 1)).isZero();
  }

  @Test
  void partitionsAreStableAndSpread() {
    int[] counts = new int[8];
    for (int i = 0; i < 8000; i++) {
      int p = Ids.partitionOf("job-" + i, 8);
      assertThat(Ids.partitionOf("job-" + i, 8)).isEqualTo(p);
      counts[p]++;
    }
    for (int c : counts) {
      assertThat(c).isBetween(800, 1200);
    }
  }

  @Test
  void generatedIdsAreUrlSafeAndDistinct() {
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < 10_000; i++) {
      String id = Ids.generate();
      assertThat(id).hasSize(16).matches("[A-Za-f][A-Za-z0-9_-]+");
      assertThat(seen.add(id)).isTrue();
    }
  }
}
