package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.delayq.testing.TestRedis;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Every delivery has its own fencing token; only the current one settles the job. */
class FencingIT {
  private Delayq delayq;
  private JobQueue queue;
  private PullConsumer pull;

  @BeforeEach
  void open() {
    delayq = Delayq.connect(TestRedis.url());
    queue = delayq.queue(TestRedis.uniqueQueue("fence"));
    pull = queue.pull();
  }

  @AfterEach
  void close() {
    delayq.close();
  }

  @Test
  void aReleasedJobComesBackOnTheSameAttemptWithANewTokenAndTheFormerHolderIsRefused() {
    queue.schedule(JobRequest.of("x").withId("j"));
    LeasedJob first = pull.claim(1, Duration.ofSeconds(30)).get(0);
    assertThat(pull.release(first)).isTrue();
    LeasedJob second = pull.claim(1, Duration.ofSeconds(30)).get(0);

    assertThat(second.attempt()).as("a release does not count the attempt").isEqualTo(first.attempt()).isEqualTo(1);
    assertThat(second.token()).isNotEqualTo(first.token());
    assertThatThrownBy(() -> pull.ack(first)).isInstanceOf(LeaseExpiredException.class)
        .hasMessageContaining("token " + first.token());
    assertThatThrownBy(() -> pull.extendLease(first.id(), first.token(), Duration.ofSeconds(5)))
        .isInstanceOf(LeaseExpiredException.class);
    assertThatThrownBy(() -> pull.nack(first, Duration.ZERO, "stale")).isInstanceOf(LeaseExpiredException.class);
    assertThat(pull.release(first)).isFalse();
    assertThat(queue.get("j").orElseThrow().state()).isEqualTo(JobState.ACTIVE);

    pull.ack(second);
    assertThat(queue.get("j")).isEmpty();
  }

  @Test
  void tokensGrowWithEveryDeliveryEvenAcrossJobs() {
    queue.scheduleAll(List.of(JobRequest.of("a").withId("a"), JobRequest.of("b").withId("b")));
    List<LeasedJob> jobs = pull.claim(2, Duration.ofSeconds(30));
    assertThat(jobs).hasSize(2);
    assertThat(jobs.get(0).token()).isNotEqualTo(jobs.get(1).token());
    jobs.forEach(pull::release);
    List<LeasedJob> again = pull.claim(2, Duration.ofSeconds(30));
    long firstMax = Math.max(jobs.get(0).token(), jobs.get(1).token());
    assertThat(again).allSatisfy(j -> assertThat(j.token()).isGreaterThan(firstMax));
  }

  @Test
  void aClaimOfTheMostJobsGivesEachItsOwnTokenBelowTheNextClaims() {
    List<JobRequest> many = new java.util.ArrayList<>();
    for (int i = 0; i < 1001; i++) {
      many.add(JobRequest.of("x").withId("m" + i));
    }
    queue.scheduleAll(many);
    List<LeasedJob> first = pull.claim(1000, Duration.ofSeconds(30));
    List<LeasedJob> second = pull.claim(1000, Duration.ofSeconds(30));
    assertThat(first).hasSize(1000);
    assertThat(second).hasSize(1);
    assertThat(first.stream().map(LeasedJob::token).distinct()).hasSize(1000);
    long firstMax = first.stream().mapToLong(LeasedJob::token).max().orElseThrow();
    assertThat(second.get(0).token()).isGreaterThan(firstMax);
    pull.ack(first.get(999));
    pull.ack(second.get(0));
    assertThat(queue.admin().stats().active()).isEqualTo(999);
  }

  @Test
  void aReleaseAfterTheLeaseEndedIsRefusedLikeAnyStaleCall() {
    queue.schedule(JobRequest.of("x").withId("late"));
    LeasedJob job = pull.claim(1, Duration.ofMillis(150)).get(0);
    await().atMost(Duration.ofSeconds(5)).until(() -> queue.get("late").orElseThrow().state() == JobState.EXPIRED);
    assertThat(pull.release(job)).isFalse();
    // Not handed back uncounted: the expiry counts the attempt when it is recovered.
    LeasedJob next = pull.claim(1, Duration.ofSeconds(30)).get(0);
    assertThat(next.attempt()).isEqualTo(2);
    assertThatThrownBy(() -> pull.ack(job)).isInstanceOf(LeaseExpiredException.class);
    pull.ack(next);
  }

  @Test
  void aWorkerThatHandsBackOnCloseLeavesItsFormerTokenPowerless() {
    queue.schedule(JobRequest.of("x").withId("w"));
    LeasedJob held = pull.claim(1, Duration.ofSeconds(30)).get(0);
    pull.release(held);
    try (Workers workers = queue.startWorkers(job -> {}, WorkerOptions.builder().build())) {
      await().atMost(Duration.ofSeconds(5)).until(() -> queue.get("w").isEmpty());
    }
    assertThatThrownBy(() -> pull.ack(held)).isInstanceOf(LeaseExpiredException.class);
  }

  @Test
  void aReleaseWithADelayKeepsTheAttemptAndTheJobScheduledUntilThen() {
    queue.schedule(JobRequest.of("x").withId("later"));
    LeasedJob first = pull.claim(1, Duration.ofSeconds(30)).get(0);
    Instant before = Instant.now();
    assertThat(pull.release(first.id(), first.token(), Duration.ofSeconds(2))).isTrue();

    JobInfo info = queue.get("later").orElseThrow();
    assertThat(info.state()).isEqualTo(JobState.SCHEDULED);
    assertThat(info.runAt()).isAfter(before.plusMillis(1_500)).isBefore(before.plusSeconds(4));
    assertThat(pull.claim(1, Duration.ofSeconds(30))).as("not due before its delay").isEmpty();
    assertThat(pull.release(first.id(), first.token(), Duration.ZERO)).as("the delivery is gone").isFalse();

    LeasedJob second = pull.claim(1, Duration.ofSeconds(30), Duration.ofSeconds(5)).get(0);
    assertThat(Instant.now()).isAfter(before.plusMillis(1_500));
    assertThat(second.attempt()).as("a release does not count the attempt").isEqualTo(1);
    assertThat(second.token()).isNotEqualTo(first.token());
    assertThatThrownBy(() -> pull.ack(first)).isInstanceOf(LeaseExpiredException.class);
    pull.ack(second);
  }

  @Test
  void aReleaseWithoutADelayIsDueAtOnceLikeThePlainRelease() {
    queue.schedule(JobRequest.of("x").withId("now"));
    LeasedJob first = pull.claim(1, Duration.ofSeconds(30)).get(0);
    assertThat(pull.release(first.id(), first.token(), Duration.ZERO)).isTrue();
    LeasedJob second = pull.claim(1, Duration.ofSeconds(30)).get(0);
    assertThat(second.attempt()).isEqualTo(1);
    pull.ack(second);
  }

  @Test
  void aReleaseDelayIsCheckedLikeAnyDelayAndNothingChangesWhenItIsWrong() {
    queue.schedule(JobRequest.of("x").withId("bad"));
    LeasedJob held = pull.claim(1, Duration.ofSeconds(30)).get(0);
    assertThatThrownBy(() -> pull.release(held.id(), held.token(), Duration.ofMillis(-1)))
        .isInstanceOf(InvalidRequestException.class).hasMessageStartingWith("dueIn: is negative");
    assertThatThrownBy(() -> pull.release(held.id(), held.token(), Duration.ofDays(365L * 1000 + 1)))
        .isInstanceOf(InvalidRequestException.class).hasMessageStartingWith("dueIn: of ").hasMessageContaining("longer than the limit");
    assertThatThrownBy(() -> pull.release(held.id(), held.token(), null))
        .isInstanceOf(InvalidRequestException.class).hasMessageStartingWith("dueIn: is null");
    assertThat(queue.get("bad").orElseThrow().state()).isEqualTo(JobState.ACTIVE);
    pull.ack(held);
  }

  @Test
  void aBuriedJobIsDeadAtOnceWithItsReasonWhateverAttemptsItHasLeft() {
    queue.schedule(JobRequest.of("x").withId("grave").withMaxAttempts(5));
    LeasedJob held = pull.claim(1, Duration.ofSeconds(30)).get(0);
    pull.bury(held.id(), held.token(), "unroutable: no queue bound");

    JobInfo info = queue.get("grave").orElseThrow();
    assertThat(info.state()).isEqualTo(JobState.DEAD);
    assertThat(info.lastError()).isEqualTo("unroutable: no queue bound");
    assertThat(queue.admin().deadJobs(10)).extracting(JobInfo::id).containsExactly("grave");
    assertThatThrownBy(() -> pull.ack(held)).isInstanceOf(LeaseExpiredException.class);
    assertThatThrownBy(() -> pull.bury(held.id(), held.token(), "again"))
        .isInstanceOf(LeaseExpiredException.class).hasMessageContaining("token " + held.token());
    assertThat(queue.admin().requeueDead("grave")).isTrue();
    assertThat(pull.claim(1, Duration.ofSeconds(30))).hasSize(1);
  }

  @Test
  void aBuryFromADeliveryThatNoLongerHoldsTheJobIsRefusedAndLeavesItAlone() {
    queue.schedule(JobRequest.of("x").withId("moved"));
    LeasedJob first = pull.claim(1, Duration.ofSeconds(30)).get(0);
    pull.release(first);
    LeasedJob second = pull.claim(1, Duration.ofSeconds(30)).get(0);
    assertThatThrownBy(() -> pull.bury(first.id(), first.token(), "stale"))
        .isInstanceOf(LeaseExpiredException.class);
    assertThat(queue.get("moved").orElseThrow().state()).isEqualTo(JobState.ACTIVE);
    pull.ack(second);
  }
}
