package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class JobRequestTest {
  @Test
  void defaultsToDueNowWithFiveAttemptsAndReplace() {
    JobRequest request = JobRequest.of("hello");
    assertThat(request.id()).isNull();
    assertThat(request.delay()).isNull();
    assertThat(request.runAt()).isNull();
    assertThat(request.maxAttempts()).isEqualTo(JobRequest.DEFAULT_MAX_ATTEMPTS);
    assertThat(request.onDuplicate()).isEqualTo(DuplicatePolicy.REPLACE);
    assertThat(request.payloadAsString()).isEqualTo("hello");
  }

  @Test
  void delayAndRunAtReplaceEachOther() {
    JobRequest atTime = JobRequest.of("x").withDelay(Duration.ofSeconds(5)).withRunAt(Instant.EPOCH);
    assertThat(atTime.delay()).isNull();
    assertThat(atTime.runAt()).isEqualTo(Instant.EPOCH);
    assertThat(atTime.withDelay(Duration.ZERO).runAt()).isNull();
  }

  @Test
  void refusesBothDelayAndRunAt() {
    assertThatThrownBy(() -> new JobRequest(null, new byte[0], Duration.ZERO, Instant.EPOCH, 1, DuplicatePolicy.KEEP))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("give one of them");
  }

  @Test
  void refusesNegativeAndOverflowingDelays() {
    assertThatThrownBy(() -> JobRequest.of("x").withDelay(Duration.ofMillis(-1)))
        .isInstanceOf(InvalidRequestException.class).hasMessageContaining("negative");
    assertThatThrownBy(() -> JobRequest.of("x").withDelay(Duration.ofSeconds(Long.MAX_VALUE)))
        .isInstanceOf(InvalidRequestException.class).hasMessageContaining("longer than the limit");
    assertThatThrownBy(() -> JobRequest.of("x").withRunAt(Instant.MAX))
        .isInstanceOf(InvalidRequestException.class).hasMessageContaining("9999-12-31");
  }

  @Test
  void refusesBadIdsAndAttempts() {
    assertThatThrownBy(() -> JobRequest.of("x").withId("")).hasMessageContaining("id: is empty");
    assertThatThrownBy(() -> JobRequest.of("x").withId("x".repeat(257))).hasMessageContaining("257 bytes");
    assertThatThrownBy(() -> JobRequest.of("x").withId("tab\there")).hasMessageContaining("U+0009");
    assertThatThrownBy(() -> JobRequest.of("x").withMaxAttempts(0)).hasMessageContaining("maxAttempts");
    assertThatThrownBy(() -> JobRequest.of("x").withMaxAttempts(1001)).hasMessageContaining("1000");
    assertThatThrownBy(() -> JobRequest.of((byte[]) null)).hasMessageContaining("payload: is missing");
    assertThat(JobRequest.of("x").withId("x".repeat(256)).id()).hasSize(256);
  }

  @Test
  void refusesIdsThatDisplayAsOtherIdsOrReadAsPathSteps() {
    assertThatThrownBy(() -> JobRequest.of("x").withId("a\ud800")).hasMessageContaining("lone UTF-16 surrogate U+D800");
    assertThatThrownBy(() -> JobRequest.of("x").withId("invoice-\u202Egpj.exe")).hasMessageContaining("U+202E")
        .hasMessageContaining("bidirectional");
    assertThatThrownBy(() -> JobRequest.of("x").withId("zero\u200Bwidth")).hasMessageContaining("U+200B");
    assertThatThrownBy(() -> JobRequest.of("x").withId("\uFEFFbom")).hasMessageContaining("U+FEFF");
    assertThatThrownBy(() -> JobRequest.of("x").withId("line\u2028break")).hasMessageContaining("U+2028");
    assertThatThrownBy(() -> JobRequest.of("x").withId("..")).hasMessageContaining("path step");
    assertThatThrownBy(() -> JobRequest.of("x").withId(".")).hasMessageContaining("path step");
    assertThat(JobRequest.of("x").withId("...").id()).isEqualTo("...");
    assertThat(JobRequest.of("x").withId("emoji-\uD83D\uDE00").id()).isEqualTo("emoji-\uD83D\uDE00");
  }

  @Test
  void equalityComparesPayloadBytes() {
    assertThat(JobRequest.of("same").withId("a")).isEqualTo(JobRequest.of("same").withId("a"));
    assertThat(JobRequest.of("same")).isNotEqualTo(JobRequest.of("other"));
    assertThat(JobRequest.of("abc").toString()).contains("3 bytes");
  }

  @Test
  void aRunAtBefore1970IsDueNowHoweverFarInThePast() {
    // why: Instant.MIN's epoch milliseconds overflow a long; the documented "before 1970 is due now" holds all the same
    for (Instant past : new Instant[] {Instant.MIN, Instant.parse("-290000000-01-01T00:00:00Z"), Instant.EPOCH.minusMillis(1)}) {
      assertThat(JobRequest.of("x").withRunAt(past).runAt()).isEqualTo(past);
      assertThat(io.delayq.internal.Rules.runAtMillis(past)).isZero();
    }
  }
}
