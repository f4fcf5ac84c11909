package io.delayq.server.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayq.WorkerProcess;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class WorkerRowTest {
  @Test
  void aProcessWithItsQueuesAndHowLongAgoItWasSeen() {
    Instant now = Instant.parse("2026-12-02T08:00:00Z");
    WorkerProcess process = new WorkerProcess("p-1", "web-3", 4242, "0.4.0", now.minus(Duration.ofHours(2)),
        now.minusSeconds(3), List.of(new WorkerProcess.QueueWork("orders", 8, 2), new WorkerProcess.QueueWork("a:b", 1, 0)));

    WorkerRow row = WorkerRow.of(process, now);

    assertThat(row.host()).isEqualTo("web-3");
    assertThat(row.pid()).isEqualTo("4242");
    assertThat(row.lastSeenAgo()).isEqualTo("3 s ago");
    assertThat(row.startedAgo()).isEqualTo("2 h ago");
    assertThat(row.started()).isEqualTo("2026-12-02 06:00:00 UTC");
    assertThat(row.queues()).extracting(WorkerRow.Work::queue).containsExactly("orders", "a:b");
    assertThat(row.queues().get(1).queuePath()).isEqualTo("/queues/a:b");
    assertThat(row.totalConcurrency()).isEqualTo(9);
    assertThat(row.totalInFlight()).isEqualTo(2);
  }

  @Test
  void anUnknownPidIsADash() {
    Instant now = Instant.now();
    assertThat(WorkerRow.of(new WorkerProcess("p", "h", -1, "unknown", now, now, List.of()), now).pid()).isEqualTo("—");
  }
}
