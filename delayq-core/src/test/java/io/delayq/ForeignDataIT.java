package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.delayq.embedded.RedisServerProcess;
import io.delayq.testing.TestRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * Values another program wrote under delayq's prefix, and ids with no UTF-8 form, never cost
 * other jobs: a claim reads and checks everything before it writes anything.
 */
class ForeignDataIT {

  /** A Redis of its own: these tests write foreign values on purpose, and other suites list every queue. */
  private static RedisServerProcess redis;

  @org.junit.jupiter.api.BeforeAll
  static void start() {
    redis = RedisServerProcess.builder().start();
  }

  @org.junit.jupiter.api.AfterAll
  static void stop() {
    redis.close();
  }

  private static void write(String key, String field, String value) {
    RedisClient raw = RedisClient.create(redis.uri());
    try (StatefulRedisConnection<String, String> c = raw.connect()) {
      if (field == null) {
        c.sync().set(key, value);
      } else {
        c.sync().hset(key, field, value);
      }
    } finally {
      raw.shutdown();
    }
  }

  private static List<JobRequest> jobs(int n) {
    List<JobRequest> jobs = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      jobs.add(JobRequest.of("p" + i).withId("job-" + i));
    }
    return jobs;
  }

  @Test
  void aTokenCounterThatIsNotANumberLosesNoJob() {
    String name = TestRedis.uniqueQueue("foreign-tokens");
    try (Delayq delayq = Delayq.connect(redis.uri())) {
      JobQueue queue = delayq.queue(name);
      queue.scheduleAll(jobs(300));
      write("{dq:" + name + ":0}:leases", "", "n/a");
      Set<String> handled = ConcurrentHashMap.newKeySet();
      try (Workers workers = queue.startWorkers(j -> handled.add(j.id()), WorkerOptions.defaults())) {
        await().atMost(Duration.ofSeconds(10)).until(() -> handled.size() == 300);
      }
      assertThat(queue.admin().stats().scheduled()).isZero();
    }
  }

  @Test
  void aClaimCounterOutOfRangeNeitherRepeatsATokenNorBreaksTheAcks() {
    // Values Lua does read as numbers, but no claim counter can hold: past 2^53, where adding one
    // changes nothing; past what a token (claim number x 1000) fits in; infinite, not a number, negative.
    for (String counter : List.of("9007199254740993", "1e16", "inf", "nan", "-5", "1.5")) {
      String name = TestRedis.uniqueQueue("foreign-counter");
      try (Delayq delayq = Delayq.connect(redis.uri())) {
        JobQueue queue = delayq.queue(name);
        PullConsumer pull = queue.pull();
        queue.schedule(JobRequest.of("x").withId("j"));
        write("{dq:" + name + ":0}:leases", "", counter);
        LeasedJob first = pull.claim(1, Duration.ofMillis(150)).get(0);
        await().atMost(Duration.ofSeconds(5)).until(() -> queue.get("j").orElseThrow().state() == JobState.EXPIRED);
        LeasedJob second = pull.claim(1, Duration.ofSeconds(30)).get(0);

        assertThat(second.token()).as(counter).isGreaterThan(first.token()).isPositive();
        assertThatThrownBy(() -> pull.ack(first)).as(counter).isInstanceOf(LeaseExpiredException.class);
        pull.ack(second);
        assertThat(queue.get("j")).as(counter).isEmpty();
      }
    }
  }

  @Test
  void aLeasesKeyOfTheWrongTypeLosesNoExpiredJob() {
    String name = TestRedis.uniqueQueue("foreign-leases");
    try (Delayq delayq = Delayq.connect(redis.uri())) {
      JobQueue queue = delayq.queue(name);
      queue.scheduleAll(jobs(2));
      queue.pull().claim(2, Duration.ofMillis(150));
      await().atMost(Duration.ofSeconds(5)).until(() -> queue.admin().stats().expired() == 2);
      write("{dq:" + name + ":0}:leases", null, "not a hash");
      for (int i = 0; i < 3; i++) {
        try {
          queue.pull().claim(10, Duration.ofSeconds(30));
        } catch (DelayqException refused) {
          // why: the claim may fail on the foreign key, or hand back nothing; either way no job may go
        }
      }
      QueueStats stats = queue.admin().stats();
      assertThat(stats.expired()).as("both jobs still wait for recovery: " + stats).isEqualTo(2);
    }
  }

  @Test
  void anAttemptsValueThatIsNotANumberCostsNoOtherJobOfTheBatch() {
    String name = TestRedis.uniqueQueue("foreign-attempts");
    try (Delayq delayq = Delayq.connect(redis.uri())) {
      JobQueue queue = delayq.queue(name);
      queue.scheduleAll(jobs(50));
      write("{dq:" + name + ":0}:attempts", "job-7", "three");
      List<LeasedJob> claimed = queue.pull().claim(50, Duration.ofSeconds(30));
      assertThat(claimed).hasSize(50);
      assertThat(claimed).filteredOn(j -> j.id().equals("job-7")).extracting(LeasedJob::attempt).containsExactly(1);
      claimed.forEach(queue.pull()::ack);
      assertThat(queue.admin().stats().active()).isZero();
    }
  }

  @Test
  void anIdWithALoneSurrogateIsRefusedRatherThanMergedWithAnother() {
    try (Delayq delayq = Delayq.connect(redis.uri())) {
      JobQueue queue = delayq.queue(TestRedis.uniqueQueue("surrogate"));
      queue.schedule(JobRequest.of("first").withId("a?"));
      assertThatThrownBy(() -> queue.schedule(JobRequest.of("second").withId("a\uD800")))
          .isInstanceOf(InvalidRequestException.class)
          .hasMessageContaining("lone UTF-16 surrogate U+D800 at index 1");
      assertThatThrownBy(() -> queue.get("\uDC00b")).isInstanceOf(InvalidRequestException.class);
      // A proper pair is fine.
      queue.schedule(JobRequest.of("emoji").withId("a\uD83D\uDE00"));
      assertThat(queue.get("a\uD83D\uDE00")).isPresent();
      assertThat(queue.get("a?").orElseThrow().payloadAsString()).isEqualTo("first");
    }
  }
}
