package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.delayq.PullConsumer.Settled;
import io.delayq.PullConsumer.Settled.Outcome;
import io.delayq.PullConsumer.Settlement;
import io.delayq.embedded.RedisServerProcess;
import io.delayq.testing.TestRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link PullConsumer#settleAll}: many acks and nacks in one call, each answered on its own. */
class SettleAllIT {
  private static final Duration LEASE = Duration.ofSeconds(30);

  private Delayq delayq;

  @BeforeEach
  void open() {
    delayq = Delayq.connect(TestRedis.url());
  }

  @AfterEach
  void close() {
    delayq.close();
  }

  @Test
  void mixedAcksNacksStaleAndRepeatedSettlementsAreEachAnsweredInOrder() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("settle-mixed"), 4);
    PullConsumer pull = queue.pull();
    List<JobRequest> requests = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      requests.add(JobRequest.of("p" + i).withId("ok-" + i));
    }
    requests.add(JobRequest.of("r").withId("retry").withMaxAttempts(3));
    requests.add(JobRequest.of("d").withId("last").withMaxAttempts(1));
    requests.add(JobRequest.of("s").withId("stale"));
    queue.scheduleAll(requests);
    Map<String, LeasedJob> held = byId(pull.claim(100, LEASE));
    assertThat(held).hasSize(15);
    // "stale" is handed back and claimed again: its first token names a delivery that is over
    LeasedJob former = held.get("stale");
    assertThat(pull.release(former)).isTrue();
    LeasedJob current = pull.claim(1, LEASE).get(0);
    assertThat(current.id()).isEqualTo("stale");

    List<Settlement> settlements = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      settlements.add(Settlement.ack(held.get("ok-" + i)));
    }
    settlements.add(Settlement.nack(held.get("retry"), Duration.ofHours(1), "flaky"));
    settlements.add(Settlement.nack(held.get("last"), null, "broken"));
    settlements.add(Settlement.ack(former));
    settlements.add(Settlement.ack("ok-3", held.get("ok-3").token()));
    settlements.add(Settlement.ack("never-claimed", 123_456_000L));
    List<Settled> answers = pull.settleAll(settlements);

    assertThat(answers).extracting(Settled::settlement).containsExactlyElementsOf(settlements);
    assertThat(answers.subList(0, 12)).extracting(Settled::outcome).containsOnly(Outcome.ACKED);
    assertThat(answers.subList(0, 12)).allSatisfy(a -> assertThat(a.failure()).isNull());
    assertThat(answers.get(12).outcome()).isEqualTo(Outcome.RETRYING);
    assertThat(answers.get(13).outcome()).isEqualTo(Outcome.DEAD);
    assertThat(answers.get(14).outcome()).isEqualTo(Outcome.REFUSED);
    assertThat(answers.get(14).failure()).isInstanceOf(LeaseExpiredException.class)
        .hasMessageContaining("token " + former.token());
    assertThat(answers.get(15).outcome()).isEqualTo(Outcome.FAILED);
    assertThat(answers.get(15).failure()).isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("settled by settlements[3] of this call already");
    assertThat(answers.get(16).outcome()).isEqualTo(Outcome.REFUSED);

    for (int i = 0; i < 12; i++) {
      assertThat(queue.get("ok-" + i)).as("ok-%d", i).isEmpty();
    }
    JobInfo retried = queue.get("retry").orElseThrow();
    assertThat(retried.state()).isEqualTo(JobState.SCHEDULED);
    assertThat(retried.lastError()).isEqualTo("flaky");
    assertThat(queue.get("last").orElseThrow().state()).isEqualTo(JobState.DEAD);
    // the refused stale ack left the current delivery holding the job, and that one settles it
    assertThat(queue.get("stale").orElseThrow().state()).isEqualTo(JobState.ACTIVE);
    assertThat(pull.settleAll(List.of(Settlement.ack(current)))).extracting(Settled::outcome)
        .containsExactly(Outcome.ACKED);
    assertThat(queue.get("stale")).isEmpty();
  }

  @Test
  void aDeliveryWhoseLeaseRanOutIsRefusedAndTheOthersAreSettled() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("settle-expired"), 2);
    PullConsumer pull = queue.pull();
    queue.schedule(JobRequest.of("short").withId("short"));
    LeasedJob expiring = pull.claim(1, Duration.ofMillis(100)).get(0);
    queue.schedule(JobRequest.of("long").withId("long"));
    LeasedJob kept = pull.claim(1, LEASE).get(0);
    await().atMost(Duration.ofSeconds(5)).until(() -> queue.get("short").orElseThrow().state() == JobState.EXPIRED);

    List<Settled> answers = pull.settleAll(List.of(Settlement.nack(expiring, Duration.ZERO, "late"), Settlement.ack(kept)));

    assertThat(answers).extracting(Settled::outcome).containsExactly(Outcome.REFUSED, Outcome.ACKED);
    assertThat(answers.get(0).failure()).isInstanceOf(LeaseExpiredException.class);
    assertThat(answers.get(0).isSettled()).isFalse();
    assertThat(answers.get(1).isSettled()).isTrue();
    assertThat(queue.get("long")).isEmpty();
  }

  @Test
  void theAcksOfOnePartitionGoInOneScriptCall() {
    try (RedisServerProcess redis = RedisServerProcess.builder().start();
        Delayq own = Delayq.connect(redis.uri())) {
      JobQueue queue = own.queue("settle-calls", 2);
      List<JobRequest> requests = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        requests.add(JobRequest.of("p").withId("j" + i));
      }
      queue.scheduleAll(requests);
      List<LeasedJob> jobs = new ArrayList<>();
      while (jobs.size() < 200) {
        jobs.addAll(queue.pull().claim(1000, LEASE));
      }
      // the first ack loads the script (NOSCRIPT, then EVAL); the rest is what is counted
      queue.pull().ack(jobs.remove(0));
      long before = scriptCalls(redis.uri());
      List<Settled> answers = queue.pull().settleAll(jobs.stream().map(Settlement::ack).toList());
      long calls = scriptCalls(redis.uri()) - before;

      assertThat(answers).extracting(Settled::outcome).containsOnly(Outcome.ACKED).hasSize(199);
      assertThat(calls).as("script calls for 199 acks over 2 partitions").isEqualTo(2);
      assertThat(queue.admin().stats().active()).isZero();
    }
  }

  @Test
  void whenRedisIsGoneEverySettlementSaysItFailedAndWhy() {
    RedisServerProcess redis = RedisServerProcess.builder().start();
    try (Delayq own = Delayq.builder().redisUrl(redis.uri()).commandTimeout(Duration.ofSeconds(2)).build()) {
      JobQueue queue = own.queue("settle-redis-gone", 2);
      queue.scheduleAll(List.of(JobRequest.of("a").withId("a"), JobRequest.of("b").withId("b")));
      List<LeasedJob> jobs = queue.pull().claim(2, LEASE);
      assertThat(jobs).hasSize(2);
      redis.close();

      List<Settled> answers =
          queue.pull().settleAll(List.of(Settlement.ack(jobs.get(0)), Settlement.nack(jobs.get(1), null, "x")));

      assertThat(answers).extracting(Settled::outcome).containsOnly(Outcome.FAILED);
      assertThat(answers).allSatisfy(a -> assertThat(a.failure())
          .isInstanceOfAny(RedisUnavailableException.class, OutcomeUnknownException.class));
    } finally {
      redis.close();
    }
  }

  @Test
  void badInputIsRefusedBeforeAnythingIsSent() {
    PullConsumer pull = delayq.queue(TestRedis.uniqueQueue("settle-checks")).pull();
    assertThat(pull.settleAll(List.of())).isEmpty();
    assertThatThrownBy(() -> pull.settleAll(Collections.nCopies(1001, Settlement.ack("a", 1000))))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("settlements: holds 1001; at most 1000");
    List<Settlement> withNull = new ArrayList<>(List.of(Settlement.ack("a", 1000)));
    withNull.add(null);
    assertThatThrownBy(() -> pull.settleAll(withNull))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("settlements[1]: is null");
    assertThatThrownBy(() -> Settlement.ack("", 1000)).isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("id: is empty");
    assertThatThrownBy(() -> new Settlement("a", 1000, Settlement.Action.ACK, Duration.ZERO, null))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("retryIn: is only for a nack");
    assertThatThrownBy(() -> Settlement.nack("a", 1000, Duration.ofSeconds(-1), null))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("retryIn: is negative");
  }

  private static Map<String, LeasedJob> byId(List<LeasedJob> jobs) {
    return jobs.stream().collect(Collectors.toMap(LeasedJob::id, Function.identity()));
  }

  /** EVALSHA and EVAL calls the server ran so far. */
  private static long scriptCalls(String uri) {
    RedisClient raw = RedisClient.create(uri);
    try (StatefulRedisConnection<String, String> c = raw.connect()) {
      String stats = c.sync().info("commandstats");
      long calls = 0;
      for (String line : stats.split("\r?\n")) {
        if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
          String count = line.substring(line.indexOf("calls=") + 6);
          calls += Long.parseLong(count.substring(0, count.indexOf(',')));
        }
      }
      return calls;
    } finally {
      raw.shutdown();
    }
  }
}
