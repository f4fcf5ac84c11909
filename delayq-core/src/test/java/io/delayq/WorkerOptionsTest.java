package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class WorkerOptionsTest {
  @Test
  void defaultsAreThePublishedConstants() {
    WorkerOptions o = WorkerOptions.defaults();
    assertThat(o.concurrency()).isEqualTo(WorkerOptions.DEFAULT_CONCURRENCY);
    assertThat(o.lease()).isEqualTo(WorkerOptions.DEFAULT_LEASE);
    assertThat(o.sweepInterval()).isEqualTo(Duration.ofSeconds(1));
    assertThat(o.backoff()).isEqualTo(Backoff.DEFAULT);
    assertThat(o.executor()).isNull();
    assertThat(o.toBuilder().concurrency(2).build().lease()).isEqualTo(o.lease());
  }

  @Test
  void settersCheckTheirValues() {
    assertThatThrownBy(() -> WorkerOptions.builder().concurrency(0)).hasMessageContaining("concurrency");
    assertThatThrownBy(() -> WorkerOptions.builder().lease(Duration.ofMillis(10))).hasMessageContaining("100 ms");
    assertThatThrownBy(() -> WorkerOptions.builder().claimBatch(5000)).hasMessageContaining("claimBatch");
    assertThatThrownBy(() -> WorkerOptions.builder().sweepInterval(Duration.ofHours(1))).hasMessageContaining("sweepInterval");
    assertThatThrownBy(() -> WorkerOptions.builder().shutdownTimeout(Duration.ofSeconds(-1))).hasMessageContaining("negative");
  }

  @Test
  void nonRetryableTypesAreKeptReplacedAndCheckedForNull() {
    assertThat(WorkerOptions.defaults().nonRetryable()).isEmpty();
    WorkerOptions o = WorkerOptions.builder()
        .nonRetryable(IllegalStateException.class)
        .nonRetryable(IllegalArgumentException.class, IllegalArgumentException.class)
        .build();
    assertThat(o.nonRetryable()).containsExactly(IllegalArgumentException.class);
    assertThat(o.toBuilder().build().nonRetryable()).containsExactly(IllegalArgumentException.class);
    assertThatThrownBy(() -> WorkerOptions.builder().nonRetryable(IllegalStateException.class, null))
        .hasMessageContaining("nonRetryable").hasMessageContaining("index 1");
  }

  @Test
  void keepLeaseWhileRunningIsOffByDefaultAndSurvivesToBuilder() {
    assertThat(WorkerOptions.defaults().keepLeaseWhileRunning()).isFalse();
    WorkerOptions kept = WorkerOptions.builder().keepLeaseWhileRunning(true).build();
    // why: the starter copies options with toBuilder() to add an executor of virtual threads
    assertThat(kept.toBuilder().concurrency(2).build().keepLeaseWhileRunning()).isTrue();
    assertThat(kept.toString()).contains("keepLeaseWhileRunning");
  }
}
