package io.delayq.server.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayq.RedisNode;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class RedisNodeViewTest {
  private static final Instant NOW = Instant.parse("2026-12-02T08:00:00Z");

  private static RedisNode node(long used, long max, String policy, String save, List<String> slots) {
    return new RedisNode("127.0.0.1:6379", "master", "7.2.4", slots.isEmpty() ? "standalone" : "cluster", used, max,
        policy, true, save, NOW.minusSeconds(300), 12, Duration.ofHours(76), slots, Duration.ofNanos(400_000));
  }

  @Test
  void memoryWithALimitHasARatioAndAnEvictingPolicyIsFlagged() {
    RedisNodeView view = RedisNodeView.of(node(512L << 20, 1L << 30, "allkeys-lru", "3600 1 300 100", List.of()), NOW);

    assertThat(view.memory()).isEqualTo("512.0 MiB of 1.0 GiB (50.0%)");
    assertThat(view.memoryRatio()).isEqualTo(0.5);
    assertThat(view.hasMemoryLimit()).isTrue();
    assertThat(view.memoryHigh()).isFalse();
    assertThat(view.evicting()).isTrue();
    assertThat(view.policy()).isEqualTo("allkeys-lru");
    assertThat(view.persistence()).isEqualTo("AOF on");
    assertThat(view.rdb()).isEqualTo("3600 1 300 100");
    assertThat(view.lastSaveAgo()).isEqualTo("5 min ago");
    assertThat(view.uptime()).isEqualTo("3 d 4 h");
    assertThat(view.roundTrip()).isEqualTo("0.4 ms");
    assertThat(view.hasSlots()).isFalse();
  }

  @Test
  void noLimitNoEvictionNoSnapshotsAndClusterSlots() {
    RedisNodeView view = RedisNodeView.of(node(2048, 0, "noeviction", "", List.of("0-5460", "10923")), NOW);

    assertThat(view.memory()).isEqualTo("2.0 KiB (no limit)");
    assertThat(view.hasMemoryLimit()).isFalse();
    assertThat(view.evicting()).isFalse();
    assertThat(view.rdb()).isEqualTo("off");
    assertThat(view.slotRanges()).containsExactly("0-5460", "10923");
  }

  @Test
  void usageAboveTheLimitIsCappedAndUnknownFiguresAreDashes() {
    assertThat(RedisNodeView.of(node(2000, 1000, "noeviction", null, List.of()), NOW).memoryRatio()).isEqualTo(1.0);
    RedisNodeView unknown = RedisNodeView.of(
        new RedisNode("h:1", null, null, null, -1, -1, null, false, null, null, -1, null, List.of(), null), NOW);
    assertThat(unknown.memory()).isEqualTo("—");
    assertThat(unknown.policy()).isEqualTo("—");
    assertThat(unknown.evicting()).isFalse();
    assertThat(unknown.clients()).isEqualTo("—");
    assertThat(unknown.rdb()).isEqualTo("—");
  }
}
