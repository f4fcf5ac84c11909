package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.testing.TestRedis;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A lease that ended without an ack shows as expired and blocks nothing until it is recovered. */
class ExpiredLeaseIT {
  private Delayq delayq;
  private JobQueue queue;

  @BeforeEach
  void open() {
    delayq = Delayq.connect(TestRedis.url());
    queue = delayq.queue(TestRedis.uniqueQueue("expired"));
  }

  @AfterEach
  void close() {
    delayq.close();
  }

  private void claimAndAbandon(String id) {
    queue.schedule(JobRequest.of("x").withId(id));
    assertThat(queue.pull().claim(1, Duration.ofMillis(150))).hasSize(1);
    await().atMost(Duration.ofSeconds(5)).until(() -> queue.get(id).orElseThrow().state() == JobState.EXPIRED);
  }

  @Test
  void anEndedLeaseShowsAsExpiredInGetAndStats() {
    claimAndAbandon("e");
    JobInfo info = queue.get("e").orElseThrow();
    assertThat(info.leaseUntil()).isNotNull();
    assertThat(info.attempts()).isEqualTo(1);
    QueueStats stats = queue.admin().stats();
    assertThat(stats.expired()).isEqualTo(1);
    assertThat(stats.active()).isZero();
  }

  @Test
  void anExpiredLeaseDoesNotBlockCancel() {
    claimAndAbandon("c");
    assertThat(queue.cancel("c")).isTrue();
    assertThat(queue.get("c")).isEmpty();
  }

  @Test
  void anExpiredLeaseDoesNotBlockReschedule() {
    claimAndAbandon("r");
    ScheduledJob moved = queue.reschedule("r", Duration.ofHours(1));
    JobInfo info = queue.get("r").orElseThrow();
    assertThat(info.state()).isEqualTo(JobState.SCHEDULED);
    assertThat(info.runAt()).isEqualTo(moved.runAt());
    assertThat(info.attempts()).as("the expired attempt counts").isEqualTo(1);
  }

  @Test
  void anExpiredLeaseDoesNotBlockReplace() {
    claimAndAbandon("p");
    ScheduledJob replaced = queue.schedule(JobRequest.of("new payload").withId("p").withDelay(Duration.ofHours(1)));
    assertThat(replaced.outcome()).isEqualTo(ScheduledJob.Outcome.REPLACED);
    JobInfo info = queue.get("p").orElseThrow();
    assertThat(info.payloadAsString()).isEqualTo("new payload");
    assertThat(info.attempts()).isZero();
  }
}
