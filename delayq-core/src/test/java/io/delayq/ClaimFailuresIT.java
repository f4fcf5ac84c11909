package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.delayq.embedded.RedisServerProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;

/**
 * A claim returns what it leased or hands it back: a failing partition, a timeout and an
 * interrupt cost no job a lease with nobody working on it; one unreadable record does not poison
 * its batch.
 */
class ClaimFailuresIT {

  /** The partition delayq puts an id in: CRC-32 of its UTF-8 bytes modulo the count. */
  static int partitionOf(String id, int partitions) {
    CRC32 crc = new CRC32();
    crc.update(id.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    return (int) (crc.getValue() % partitions);
  }

  @Test
  void aPartitionThatFailsDoesNotCostTheJobsLeasedFromTheOthers() {
    // why: a Redis of its own, since the test breaks a key on purpose and other suites list every queue
    try (RedisServerProcess redis = RedisServerProcess.builder().start();
        Delayq delayq = Delayq.connect(redis.uri())) {
      String name = "partfail";
      JobQueue queue = delayq.queue(name, 4);
      List<JobRequest> requests = new ArrayList<>();
      int onBroken = 0;
      for (int i = 0; i < 40; i++) {
        String id = "j-" + i;
        if (partitionOf(id, 4) == 3) {
          onBroken++;
          continue;
        }
        requests.add(JobRequest.of("x").withId(id));
      }
      queue.scheduleAll(requests);
      // Partition 3's schedule becomes a key of the wrong type: every claim there fails.
      RedisClient raw = RedisClient.create(redis.uri());
      try (StatefulRedisConnection<String, String> c = raw.connect()) {
        c.sync().set("{dq:" + name + ":3}:scheduled", "not a sorted set");
      } finally {
        raw.shutdown();
      }
      assertThat(onBroken).isPositive();
      List<LeasedJob> claimed = new ArrayList<>();
      for (int round = 0; round < 8 && claimed.size() < requests.size(); round++) {
        claimed.addAll(queue.pull().claim(100, Duration.ofSeconds(30)));
      }
      assertThat(claimed).hasSize(requests.size());
      // Every job leased was returned to the caller, so the caller can settle every one.
      claimed.forEach(queue.pull()::ack);
      for (JobRequest r : requests) {
        assertThat(queue.get(r.id())).as(r.id()).isEmpty();
      }
    }
  }

  @Test
  void aClaimThatTimesOutHandsBackWhatItLeasedOnceTheAnswerComes() throws Exception {
    try (RedisServerProcess redis = RedisServerProcess.builder().start();
        Delayq delayq = Delayq.builder().redisUrl(redis.uri()).commandTimeout(Duration.ofMillis(300)).build()) {
      JobQueue queue = delayq.queue("timeouts", 2);
      List<JobRequest> requests = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        requests.add(JobRequest.of("x").withId("t-" + i).withMaxAttempts(1));
      }
      queue.scheduleAll(requests);
      pause(redis, 1_500);
      assertThatThrownBy(() -> queue.pull().claim(20, Duration.ofMinutes(5)))
          .isInstanceOf(OutcomeUnknownException.class);
      // Once Redis runs the claim, its jobs go back at once, uncounted, not after a 5-minute lease.
      // why gathered over several claims: when the pause ends, Redis may answer the stats (main
      // connection) before it runs the paused claim (worker connection), and a claim here may then
      // find jobs that are held until their hand-back a moment later.
      await().atMost(Duration.ofSeconds(5)).ignoreExceptions().until(() -> queue.admin().stats().scheduled() == 20
          && queue.admin().stats().active() == 0);
      List<LeasedJob> again = new ArrayList<>();
      await().atMost(Duration.ofSeconds(5)).ignoreExceptions().until(() -> {
        again.addAll(queue.pull().claim(20, Duration.ofSeconds(30)));
        return again.size() == 20;
      });
      assertThat(again).as("handed back uncounted: a counted attempt would have buried them")
          .allSatisfy(job -> assertThat(job.attempt()).isEqualTo(1));
    }
  }

  @Test
  void anInterruptedClaimHandsBackWhatItLeased() throws Exception {
    try (RedisServerProcess redis = RedisServerProcess.builder().start();
        Delayq delayq = Delayq.builder().redisUrl(redis.uri()).commandTimeout(Duration.ofSeconds(5)).build()) {
      JobQueue queue = delayq.queue("interrupts");
      for (int i = 0; i < 5; i++) {
        queue.schedule(JobRequest.of("x").withId("i-" + i));
      }
      pause(redis, 1_500);
      AtomicReference<Thread> claimer = new AtomicReference<>();
      CompletableFuture<List<LeasedJob>> claim = CompletableFuture.supplyAsync(() -> {
        claimer.set(Thread.currentThread());
        return queue.pull().claim(5, Duration.ofMinutes(5), Duration.ofSeconds(10));
      });
      await().atMost(Duration.ofSeconds(1)).until(() -> claimer.get() != null);
      claimer.get().interrupt();
      assertThat(claim.get()).as("an interrupted claim returns what it has").isEmpty();
      await().atMost(Duration.ofSeconds(5)).ignoreExceptions().until(() -> queue.admin().stats().scheduled() == 5
          && queue.admin().stats().active() == 0);
    }
  }

  @Test
  void oneUnreadableRecordGoesDeadWithTheReasonAndTheRestOfTheBatchIsDelivered() {
    try (RedisServerProcess redis = RedisServerProcess.builder().start();
        Delayq delayq = Delayq.connect(redis.uri())) {
      String name = "poison";
      JobQueue queue = delayq.queue(name);
      for (int i = 0; i < 5; i++) {
        queue.schedule(JobRequest.of("ok").withId("good-" + i));
      }
      queue.schedule(JobRequest.of("x").withId("bad"));
      RedisClient raw = RedisClient.create(redis.uri());
      try (StatefulRedisConnection<String, String> c = raw.connect()) {
        c.sync().hset("{dq:" + name + ":0}:jobs", "bad", "9|garbage written by another program");
      } finally {
        raw.shutdown();
      }
      List<LeasedJob> claimed = queue.pull().claim(10, Duration.ofSeconds(30));
      assertThat(claimed).extracting(LeasedJob::id)
          .containsExactlyInAnyOrder("good-0", "good-1", "good-2", "good-3", "good-4");
      await().atMost(Duration.ofSeconds(5)).until(() -> queue.admin().stats().dead() == 1);
      JobInfo dead = queue.admin().deadJobs(10).get(0);
      assertThat(dead.id()).isEqualTo("bad");
      assertThat(dead.lastError()).contains("record cannot be decoded");
    }
  }

  private static void pause(RedisServerProcess redis, long millis) {
    RedisClient raw = RedisClient.create(redis.uri());
    try (StatefulRedisConnection<String, String> c = raw.connect()) {
      c.sync().clientPause(millis);
    } finally {
      raw.shutdown();
    }
  }
}
