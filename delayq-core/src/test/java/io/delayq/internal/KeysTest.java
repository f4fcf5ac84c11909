package io.delayq.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Pins every Redis key and channel name. A failure here means stored data would no longer be found
 * by the new code: record the change in UPGRADING.md before updating these strings.
 */
class KeysTest {
  @Test
  void partitionKeysShareOneHashTag() {
    Keys.Partition p = Keys.partition("orders", 3);
    assertThat(p.number()).isEqualTo(3);
    assertThat(s(p.scheduled())).isEqualTo("{dq:orders:3}:scheduled");
    assertThat(s(p.active())).isEqualTo("{dq:orders:3}:active");
    assertThat(s(p.dead())).isEqualTo("{dq:orders:3}:dead");
    assertThat(s(p.jobs())).isEqualTo("{dq:orders:3}:jobs");
    assertThat(s(p.paused())).isEqualTo("{dq:orders:3}:paused");
    assertThat(s(p.leases())).isEqualTo("{dq:orders:3}:leases");
    // The order every script takes its KEYS in (lua/_keys.lua).
    assertThat(java.util.Arrays.stream(p.all()).map(KeysTest::s))
        .containsExactly(
            "{dq:orders:3}:scheduled",
            "{dq:orders:3}:active",
            "{dq:orders:3}:jobs",
            "{dq:orders:3}:attempts",
            "{dq:orders:3}:errors",
            "{dq:orders:3}:dead",
            "{dq:orders:3}:paused",
            "{dq:orders:3}:leases",
            "{dq:orders:3}:done:a",
            "{dq:orders:3}:done:b",
            "{dq:orders:3}:done:starts");
  }

  @Test
  void heartbeatAndHistoryNamesShareOneHashTagEachAndAQueuesHistoryItsSettingsTag() {
    assertThat(Keys.workersSeen()).isEqualTo("{dq:workers}:seen");
    assertThat(Keys.workerProcess("0123456789abcdef")).isEqualTo("{dq:workers}:w:0123456789abcdef");
    assertThat(Keys.historyMinute("orders", 28_000_000)).isEqualTo("{dq:orders}:history:m:28000000");
    assertThat(Keys.historyHour("orders", 466_666)).isEqualTo("{dq:orders}:history:h:466666");
    assertThat(Keys.allHistoryMinute(28_000_000)).isEqualTo("{dq:h}:m:28000000");
    assertThat(Keys.allHistoryHour(466_666)).isEqualTo("{dq:h}:h:466666");
    assertThat(Keys.isDelayqKey(Keys.workersSeen())).isTrue();
    assertThat(Keys.isDelayqKey(Keys.historyMinute("orders", 1))).isTrue();
    assertThat(Keys.isDelayqKey(Keys.historyHour("orders", 1))).isTrue();
    assertThat(Keys.historyDeleted("orders")).isEqualTo("{dq:orders}:deleted");
    assertThat(Keys.isDelayqKey(Keys.historyDeleted("orders"))).isTrue();
    assertThat(Keys.isDelayqKey("{dq:orders}:someone-elses")).isFalse();
    assertThat(Keys.isDelayqKey(Keys.allHistoryHour(1))).isTrue();
  }

  @Test
  void queueLevelNames() {
    assertThat(Keys.settings("orders")).isEqualTo("{dq:orders}:settings");
    assertThat(Keys.registry()).isEqualTo("dq:queues");
    assertThat(Keys.wakeChannel("orders")).isEqualTo("dq:orders:wake");
    assertThat(Keys.timeProbe()).isEqualTo("dq:time-probe");
  }

  @Test
  void queueNamesWithColonsCannotCollideWithPartitions() {
    // Queue "a:1" partition 0 and queue "a" partition 1 would only collide if the tag ended alike.
    assertThat(s(Keys.partition("a:1", 0).jobs())).isEqualTo("{dq:a:1:0}:jobs");
    assertThat(s(Keys.partition("a", 1).jobs())).isEqualTo("{dq:a:1}:jobs");
    assertThat(Keys.settings("a:1")).isEqualTo("{dq:a:1}:settings");
  }

  private static String s(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }
}
