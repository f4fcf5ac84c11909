package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delayq.testing.TestRedis;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The long-poll claim, the queue registry and per-queue defaults: what the HTTP server builds on. */
class PullApiIT {
  private static Delayq delayq;

  @BeforeAll
  static void connect() {
    delayq = Delayq.connect(TestRedis.url());
  }

  @AfterAll
  static void close() {
    delayq.close();
  }

  @Test
  void aWaitingClaimReturnsAJobWithinMillisecondsOfItsDueTime() throws Exception {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("long-poll"), 4);
    CompletableFuture<List<LeasedJob>> claim =
        CompletableFuture.supplyAsync(() -> queue.pull().claim(10, Duration.ofSeconds(30), Duration.ofSeconds(20)));
    // the claim is waiting on an empty queue; a job due in 300 ms arrives
    ScheduledJob scheduled = queue.schedule(JobRequest.of("soon").withDelay(Duration.ofMillis(300)));
    List<LeasedJob> jobs = claim.get(10, TimeUnit.SECONDS);
    Instant returned = Instant.now();
    assertThat(jobs).singleElement().satisfies(job -> assertThat(job.id()).isEqualTo(scheduled.id()));
    assertThat(returned).isAfterOrEqualTo(scheduled.runAt());
    assertThat(Duration.between(scheduled.runAt(), returned)).isLessThan(Duration.ofMillis(250));
  }

  @Test
  void aJsonPayloadStaysMarkedAsJsonThroughClaimLookupAndRetry() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("json-payload"));
    queue.schedule(JobRequest.ofJson("{\"order\":42}").withId("json"));
    queue.schedule(JobRequest.of("{\"order\":42}").withId("text"));
    assertThat(queue.get("json").orElseThrow().payloadIsJson()).isTrue();
    assertThat(queue.get("text").orElseThrow().payloadIsJson()).isFalse();
    List<LeasedJob> jobs = queue.pull().claim(10, Duration.ofSeconds(30));
    assertThat(jobs).extracting(LeasedJob::id, LeasedJob::payloadIsJson, LeasedJob::payloadAsString)
        .containsExactlyInAnyOrder(tuple("json", true, "{\"order\":42}"), tuple("text", false, "{\"order\":42}"));
    for (LeasedJob job : jobs) {
      queue.pull().nack(job.id(), job.token(), Duration.ZERO, "again");
    }
    assertThat(queue.pull().claim(10, Duration.ofSeconds(30))).extracting(LeasedJob::id, LeasedJob::payloadIsJson)
        .containsExactlyInAnyOrder(tuple("json", true), tuple("text", false));
  }

  @Test
  void waitingClaimsOneAfterAnotherMissNoWakeUp() throws Exception {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("long-poll-turns"));
    for (int round = 0; round < 8; round++) {
      CompletableFuture<List<LeasedJob>> claim =
          CompletableFuture.supplyAsync(() -> queue.pull().claim(1, Duration.ofSeconds(30), Duration.ofSeconds(5)));
      // scheduled while the claim is just starting, as a busy HTTP worker's next poll would be
      ScheduledJob scheduled = queue.schedule(JobRequest.of("r" + round).withDelay(Duration.ofMillis(150)));
      List<LeasedJob> jobs = claim.get(10, TimeUnit.SECONDS);
      Instant returned = Instant.now();
      assertThat(jobs).as("round %d", round).singleElement()
          .satisfies(job -> assertThat(job.id()).isEqualTo(scheduled.id()));
      assertThat(Duration.between(scheduled.runAt(), returned)).as("round %d", round).isLessThan(Duration.ofMillis(400));
      queue.pull().ack(jobs.get(0));
    }
  }

  @Test
  void aWaitingClaimIsWokenByAJobThatIsDueAtOnce() throws Exception {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("long-poll-now"));
    queue.schedule(JobRequest.of("later").withId("later").withDelay(Duration.ofMinutes(10)));
    long start = System.nanoTime();
    CompletableFuture<List<LeasedJob>> claim =
        CompletableFuture.supplyAsync(() -> queue.pull().claim(1, Duration.ofSeconds(30), Duration.ofSeconds(20)));
    queue.schedule(JobRequest.of("now").withId("now"));
    assertThat(claim.get(10, TimeUnit.SECONDS)).extracting(LeasedJob::id).containsExactly("now");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
  }

  @Test
  void aWaitingClaimOnAnEmptyQueueReturnsNothingAfterItsWait() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("long-poll-empty"), 2);
    long start = System.nanoTime();
    assertThat(queue.pull().claim(5, Duration.ofSeconds(30), Duration.ofMillis(400))).isEmpty();
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(400), Duration.ofSeconds(3));
    assertThatThrownBy(() -> queue.pull().claim(5, Duration.ofSeconds(30), Duration.ofMinutes(6)))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("wait: must be between 0 and 5 minutes");
  }

  @Test
  void queuesAreListedAndLookingOneUpNeverCreatesIt() {
    String name = TestRedis.uniqueQueue("listed");
    String never = TestRedis.uniqueQueue("never-used");
    assertThat(delayq.existingQueue(never)).isEmpty();
    assertThat(delayq.queueNames()).doesNotContain(never);
    delayq.queue(name, 3);
    assertThat(delayq.queueNames()).contains(name).isSorted();
    try (Delayq other = Delayq.connect(TestRedis.url())) {
      assertThat(other.existingQueue(name)).hasValueSatisfying(q -> assertThat(q.partitions()).isEqualTo(3));
      assertThat(other.existingQueue(never)).isEmpty();
      assertThat(other.queueNames()).doesNotContain(never);
    }
  }

  @Test
  void defaultsAreStoredWithTheQueue() {
    String name = TestRedis.uniqueQueue("defaults");
    JobQueue queue = delayq.queue(name);
    assertThat(queue.admin().defaults())
        .isEqualTo(new QueueDefaults(JobRequest.DEFAULT_MAX_ATTEMPTS, WorkerOptions.DEFAULT_LEASE));
    queue.admin().setDefaults(new QueueDefaults(9, Duration.ofSeconds(45)));
    try (Delayq other = Delayq.connect(TestRedis.url())) {
      assertThat(other.queue(name).admin().defaults()).isEqualTo(new QueueDefaults(9, Duration.ofSeconds(45)));
    }
    assertThatThrownBy(() -> new QueueDefaults(0, Duration.ofSeconds(1)))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("maxAttempts: must be between 1 and 1000; got 0");
  }
}
