package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.embedded.RedisSentinelProcesses;
import io.delayq.embedded.RedisServerProcess;
import io.delayq.testing.TestRedis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A primary, one replica and three Sentinels (quorum 2, down after 1 s), started for each test on
 * loopback and stopped by pid. Producers schedule durably ({@code waitForReplicas(1, ..)}) while
 * two clients' workers run; then the primary fails over, by {@code SENTINEL FAILOVER} (the old
 * primary stays up, and answers as a master until the Sentinels demote it) or by SIGKILL. Checked:
 * every acknowledged schedule is delivered and acked; producers, workers and wake-ups carry on
 * without a restart; and, from the history of deliveries, no job is held by two handlers at once
 * nor given a token twice except by a claim made on the old master during the switch, the one
 * case async replication cannot rule out (its lease never reaches the new master).
 */
class SentinelFailoverIT {
  private static final Logger log = LoggerFactory.getLogger(SentinelFailoverIT.class);
  private static final int PARTITIONS = ClusterFailoverIT.PARTITIONS;
  private static final Duration LEASE = Duration.ofSeconds(5);

  @Test
  void aSentinelFailoverMovesEveryConnectionToTheNewMasterBeforeTheOldOneIsDemoted() throws Exception {
    run(Kind.SENTINEL_FAILOVER);
  }

  @Test
  void aKilledPrimaryIsReplacedAndEveryAcknowledgedJobIsDelivered() throws Exception {
    run(Kind.KILL);
  }

  @Test
  void theHistoryCheckFlagsTwoHoldersAtOnceAndARepeatedTokenOutsideTheSwitch() {
    List<Run> runs = List.of(
        new Run("a", 1000, 1, 50, 100, 200), new Run("a", 2000, 2, 60, 150, 250), // overlap
        new Run("b", 3000, 1, 70, 300, 310), new Run("b", 3000, 2, 80, 400, 410), // same token
        new Run("c", 4000, 1, 1_050, 500, 600), new Run("c", 4000, 2, 1_200, 550, 650), // in the switch
        new Run("d", 5000, 1, 90, 700, 710), new Run("d", 6000, 2, 95, 800, 810)); // redelivered later
    History history = History.of(runs, 1_000, 1_100);
    assertThat(history.violations).hasSize(2).anyMatch(v -> v.startsWith("a:") && v.endsWith("overlap"))
        .anyMatch(v -> v.startsWith("b:") && v.endsWith("share a token"));
    assertThat(history.repeated).isEqualTo(4);
    assertThat(history.repeatedFromSwitch).isEqualTo(1);
    assertThat(history.overlaps).isEqualTo(2);
  }

  private enum Kind {
    SENTINEL_FAILOVER,
    KILL
  }

  /**
   * One handler run: which client, the delivery's token, when its claim leased the job (by the
   * Redis clock, epoch ms: the test's Redis servers run on this machine's clock) and when the run
   * started and ended (nanoTime).
   */
  private record Run(String id, long token, int client, long claimedAt, long start, long end) {}

  private static void run(Kind kind) throws Exception {
    try (RedisSentinelProcesses redis = RedisSentinelProcesses.builder().start();
        Delayq producerClient = client(redis).waitForReplicas(1, Duration.ofSeconds(1)).build();
        Delayq workerClient1 = client(redis).build();
        Delayq workerClient2 = client(redis).build()) {
      String name = TestRedis.uniqueQueue("sentinel-failover");
      JobQueue produced = producerClient.queue(name, PARTITIONS);
      List<Run> runs = new CopyOnWriteArrayList<>();
      List<Workers> workers = new ArrayList<>();
      int client = 0;
      for (Delayq workerClient : List.of(workerClient1, workerClient2)) {
        int c = ++client;
        workers.add(workerClient.queue(name).startWorkers(job -> {
          long start = System.nanoTime();
          // why: a handler that takes a moment, so that two deliveries of one job at once would overlap
          LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(3));
          long claimedAt = job.leaseUntil().toEpochMilli() - LEASE.toMillis();
          runs.add(new Run(job.id(), job.token(), c, claimedAt, start, System.nanoTime()));
        }, WorkerOptions.builder().concurrency(4).lease(LEASE).sweepInterval(Duration.ofMillis(250)).build()));
      }
      // workers that only claim when woken: their sweep is far longer than the test
      JobQueue wakeQueue = workerClient1.queue(TestRedis.uniqueQueue("sentinel-wake"), PARTITIONS);
      Map<String, Long> wokenAt = new ConcurrentHashMap<>();
      Workers wakeOnly = wakeQueue.startWorkers(job -> wokenAt.put(job.id(), System.nanoTime()),
          WorkerOptions.builder().sweepInterval(Duration.ofMinutes(1)).build());
      ClusterFailoverIT.assertWakeUpsArrive(wakeQueue, wokenAt, "before");

      ClusterFailoverIT.Producer producer = new ClusterFailoverIT.Producer("durable", produced);
      producer.start();
      await().atMost(Duration.ofSeconds(30)).until(() -> producer.acknowledged.size() > 300);

      RedisServerProcess old = redis.master();
      assertThat(SentinelIT.clientNames(old)).contains("delayq-producer", "delayq-worker", "delayq-wakeup");
      int acknowledgedBefore = producer.acknowledged.size();
      long failoverStart = System.nanoTime();
      long failoverStartMillis = System.currentTimeMillis();
      if (kind == Kind.SENTINEL_FAILOVER) {
        redis.failover();
      } else {
        old.kill();
      }
      RedisServerProcess promoted = redis.awaitNewMaster(old, Duration.ofSeconds(30));
      long switched = System.nanoTime();
      long movedAt;
      long movedAtMillis;
      if (kind == Kind.SENTINEL_FAILOVER) {
        // The Sentinels demote the old master no sooner than 8 s after the switch; delayq's
        // connections must have left it well before, by themselves.
        await().atMost(Duration.ofSeconds(7)).pollInterval(Duration.ofMillis(100))
            .until(() -> SentinelIT.clientNames(old).stream().noneMatch(n -> n.startsWith("delayq-")));
        movedAt = System.nanoTime();
        movedAtMillis = System.currentTimeMillis();
        log.info("delayq's connections left the old master {} ms after the Sentinels named the new one",
            TimeUnit.NANOSECONDS.toMillis(movedAt - switched));
      } else {
        movedAt = switched;
        movedAtMillis = System.currentTimeMillis();
      }
      await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100)).untilAsserted(() ->
          assertThat(SentinelIT.clientNames(promoted)).as("connections on the new master: %s; on the old: %s",
                  SentinelIT.clientList(promoted), old.isAlive() ? SentinelIT.clientList(old) : "(dead)")
              .contains("delayq-producer", "delayq-worker", "delayq-wakeup"));

      // wake-ups arrive through the new master
      ClusterFailoverIT.assertWakeUpsArrive(wakeQueue, wokenAt, "after-failover");
      wakeOnly.close();

      // durable schedules resume once the old primary replicates from the new one: after a
      // SENTINEL FAILOVER the Sentinels make it a replica; a killed one is restarted and made one
      if (kind == Kind.KILL) {
        old.restart();
      }
      redis.awaitReplicaInSync(old, Duration.ofSeconds(60));
      int afterSwitch = producer.acknowledged.size();
      await().atMost(Duration.ofSeconds(30)).until(() -> producer.acknowledged.size() > afterSwitch + 100);
      producer.stop();

      // every acknowledged schedule is delivered, by workers that were never restarted, and acked
      await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> {
        var delivered = runs.stream().map(Run::id).collect(Collectors.toSet());
        return delivered.containsAll(producer.acknowledged);
      });
      await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> {
        QueueStats s = produced.admin().stats();
        return s.scheduled() == 0 && s.active() == 0;
      });
      workers.forEach(Workers::close);
      long lateRuns = runs.stream().filter(r -> r.start > movedAt).count();
      assertThat(lateRuns).as("jobs run after the failover").isGreaterThan(100);

      // a claim just before a SIGKILL may not have reached the replica yet: asynchronous replication
      History history = History.of(runs, failoverStartMillis - 500, movedAtMillis);
      log.info("SENTINEL FAILOVER REPORT ({}): promoted after {} ms; acknowledged {} ({} before); refused {} ({} not"
              + " replicated); runs {}, jobs run more than once {} (of them claimed on the old master during the"
              + " switch: {}); overlapping runs {}",
          kind, TimeUnit.NANOSECONDS.toMillis(switched - failoverStart), producer.acknowledged.size(),
          acknowledgedBefore, producer.failures.get(), producer.notReplicated.get(), runs.size(), history.repeated,
          history.repeatedFromSwitch, history.overlaps);
      assertThat(producer.failures.get()).as("the failover was seen by the producer").isPositive();
      assertThat(history.violations).as("runs that break one holder per lease or unique tokens").isEmpty();
    }
  }

  private static Delayq.Builder client(RedisSentinelProcesses redis) {
    return Delayq.builder().redisUrl(redis.url()).commandTimeout(Duration.ofSeconds(2));
  }

  /**
   * The checks on the runs: for each job, two runs that overlap in time, or two deliveries with one
   * token, are a violation unless the earlier one was claimed in {@code [windowStart, windowEnd]}
   * (epoch ms), while a claim could still reach the old master: it leased the job there only, so
   * the new master rightly hands it out again, and a claim number counted there may be counted
   * again here.
   */
  private static final class History {
    final List<String> violations = new ArrayList<>();
    long repeated;
    long repeatedFromSwitch;
    long overlaps;

    static History of(List<Run> runs, long windowStart, long windowEnd) {
      History h = new History();
      Map<String, List<Run>> byJob = runs.stream().collect(Collectors.groupingBy(Run::id));
      for (List<Run> jobRuns : byJob.values()) {
        if (jobRuns.size() < 2) {
          continue;
        }
        h.repeated++;
        jobRuns.sort(Comparator.comparingLong(Run::start));
        boolean fromSwitch = false;
        for (int i = 0; i < jobRuns.size(); i++) {
          Run earlier = jobRuns.get(i);
          boolean excused = earlier.claimedAt >= windowStart && earlier.claimedAt <= windowEnd;
          fromSwitch |= excused;
          for (int j = i + 1; j < jobRuns.size(); j++) {
            Run later = jobRuns.get(j);
            boolean overlap = later.start < earlier.end;
            boolean sameToken = later.token == earlier.token;
            if (overlap) {
              h.overlaps++;
            }
            if ((overlap || sameToken) && !excused) {
              h.violations.add(later.id + ": " + earlier + " and " + later + (overlap ? " overlap" : " share a token"));
            }
          }
        }
        if (fromSwitch) {
          h.repeatedFromSwitch++;
        }
      }
      return h;
    }
  }
}
