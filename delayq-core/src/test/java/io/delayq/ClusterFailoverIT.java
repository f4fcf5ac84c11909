package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.embedded.RedisClusterProcesses;
import io.delayq.embedded.RedisServerProcess;
import io.delayq.testing.TestRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A master of a real cluster is killed with SIGKILL while producers schedule and workers run. Its
 * replica takes over; producers and workers carry on without being restarted. Every job whose
 * durable schedule returned is delivered; plain schedules may lose the last writes the dead master
 * had not yet replicated, and the test reports how many.
 */
class ClusterFailoverIT {
  private static final Logger log = LoggerFactory.getLogger(ClusterFailoverIT.class);
  static final int PARTITIONS = 16;

  @Test
  void aKilledMasterIsReplacedAndEveryDurablyScheduledJobIsDelivered() throws Exception {
    try (RedisClusterProcesses cluster = RedisClusterProcesses.builder().start();
        Delayq plainClient = Delayq.builder().redisUrl(cluster.seedUrls()).commandTimeout(Duration.ofSeconds(2)).build();
        Delayq durableClient =
            Delayq.builder()
                .redisUrl(cluster.seedUrls())
                .commandTimeout(Duration.ofSeconds(2))
                .waitForReplicas(1, Duration.ofSeconds(1))
                .build();
        Delayq workerClient = Delayq.builder().redisUrl(cluster.seedUrls()).commandTimeout(Duration.ofSeconds(2)).build()) {
      String name = TestRedis.uniqueQueue("failover");
      JobQueue plain = plainClient.queue(name, PARTITIONS);
      JobQueue durable = durableClient.queue(name);
      Map<String, AtomicInteger> deliveries = new ConcurrentHashMap<>();
      Workers workers =
          workerClient
              .queue(name)
              .startWorkers(
                  job -> deliveries.computeIfAbsent(job.id(), id -> new AtomicInteger()).incrementAndGet(),
                  WorkerOptions.builder()
                      .concurrency(8)
                      .lease(Duration.ofSeconds(2))
                      .sweepInterval(Duration.ofMillis(250))
                      .build());

      // workers that only claim when woken: their sweep is far longer than the test
      JobQueue wakeQueue = workerClient.queue(TestRedis.uniqueQueue("failover-wake"), PARTITIONS);
      Map<String, Long> wokenAt = new ConcurrentHashMap<>();
      Workers wakeOnly =
          wakeQueue.startWorkers(
              job -> wokenAt.put(job.id(), System.nanoTime()),
              WorkerOptions.builder().sweepInterval(Duration.ofMinutes(1)).build());

      Producer plainProducer = new Producer("plain", plain);
      Producer durableProducer = new Producer("durable", durable);
      plainProducer.start();
      durableProducer.start();
      await().atMost(Duration.ofSeconds(30)).until(() -> durableProducer.acknowledged.size() > 500);

      // The node that holds the workers' wake-up subscription dies first, so that the subscription
      // must move. If it is a master, it is also the master whose failover is tested.
      String wakeChannel = "dq:" + wakeQueue.name() + ":wake";
      RedisServerProcess subscribed = nodeSubscribedTo(cluster, wakeChannel);
      RedisServerProcess victim;
      if (cluster.masters().contains(subscribed)) {
        victim = subscribed;
      } else {
        int mastersPort = masterPortOf(subscribed);
        subscribed.kill();
        log.info("killed replica {}, which held the wake-up subscription", subscribed.uri());
        assertWakeUpsArrive(wakeQueue, wokenAt, "after-replica-loss");
        subscribed.restart();
        victim = cluster.masters().stream().filter(m -> m.port() != mastersPort).findFirst().orElseThrow();
      }
      Set<Integer> onVictim = new HashSet<>();
      for (int p = 0; p < PARTITIONS; p++) {
        if (cluster.masterOfSlot(RedisClusterProcesses.slot("{dq:" + name + ":" + p + "}")).equals(victim)) {
          onVictim.add(p);
        }
      }
      plainProducer.watch(onVictim);
      durableProducer.watch(onVictim);
      int slot = RedisClusterProcesses.slot("{dq:" + name + ":" + onVictim.iterator().next() + "}");
      log.info("killing master {}, which serves partitions {}", victim.uri(), onVictim);
      RedisServerProcess killed = cluster.killMaster(slot);
      int acknowledgedAtKill = durableProducer.acknowledged.size();
      long killedAt = System.nanoTime();
      RedisServerProcess promoted = cluster.awaitFailover(slot, Duration.ofSeconds(30));
      log.info("master {} killed; replica {} promoted after {} ms", killed.uri(), promoted.uri(),
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt));

      // wake-ups still arrive through the failover
      assertWakeUpsArrive(wakeQueue, wokenAt, "after-failover");
      wakeOnly.close();

      // producers carry on by themselves: plain schedules reach the new master
      int plainBefore = plainProducer.acknowledgedOnVictim.get();
      await().atMost(Duration.ofSeconds(30)).until(() -> plainProducer.acknowledgedOnVictim.get() > plainBefore + 20);

      // the killed node comes back as a replica of the new master; durable schedules to it resume
      killed.restart();
      int durableBefore = durableProducer.acknowledgedOnVictim.get();
      await().atMost(Duration.ofSeconds(60)).until(() -> durableProducer.acknowledgedOnVictim.get() > durableBefore + 20);
      assertThat(durableProducer.acknowledged.size()).isGreaterThan(acknowledgedAtKill);

      plainProducer.stop();
      durableProducer.stop();
      // every durably acknowledged job is delivered, by workers that were never restarted
      await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
          .until(() -> durableProducer.acknowledged.stream().allMatch(deliveries::containsKey));
      // plain schedules: wait until everything still scheduled has run, then count what is missing
      await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> {
        QueueStats s = plain.admin().stats();
        return s.scheduled() == 0 && s.active() == 0;
      });
      workers.close();

      long plainLost = plainProducer.acknowledged.stream().filter(id -> !deliveries.containsKey(id)).count();
      long redelivered = deliveries.values().stream().filter(n -> n.get() > 1).count();
      log.info("FAILOVER REPORT: durable acknowledged {} lost 0; plain acknowledged {} lost {}; refused during"
              + " failover: plain {}, durable {} ({} not replicated); delivered twice: {}",
          durableProducer.acknowledged.size(), plainProducer.acknowledged.size(), plainLost,
          plainProducer.failures.get(), durableProducer.failures.get(), durableProducer.notReplicated.get(),
          redelivered);
      assertThat(plainProducer.failures.get() + durableProducer.failures.get())
          .as("the failover was seen by the producers")
          .isPositive();
      // asynchronous replication loses at most what the master wrote in its last moments
      assertThat(plainLost).isLessThan(plainProducer.acknowledged.size() / 10 + 1);
    }
  }

  /**
   * Jobs due at once reach workers whose sweep is a minute: only a wake-up message can bring them.
   * Also used by {@link SentinelFailoverIT}.
   */
  static void assertWakeUpsArrive(JobQueue queue, Map<String, Long> wokenAt, String prefix) {
    Map<String, Long> scheduledAt = new ConcurrentHashMap<>();
    for (int i = 0; i < 16; i++) {
      String id = prefix + "-" + i;
      scheduleWhenAvailable(queue, id);
      scheduledAt.put(id, System.nanoTime());
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> wokenAt.keySet().containsAll(scheduledAt.keySet()));
    long slowest = scheduledAt.entrySet().stream()
        .mapToLong(e -> wokenAt.get(e.getKey()) - e.getValue()).max().orElseThrow();
    log.info("{}: 16 jobs due at once reached workers with a 1-minute sweep; slowest {} ms after its schedule returned",
        prefix, TimeUnit.NANOSECONDS.toMillis(slowest));
  }

  private static int masterPortOf(RedisServerProcess replica) {
    RedisClient client = RedisClient.create(replica.uri());
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      String info = connection.sync().info("replication");
      return Integer.parseInt(info.replaceAll("(?s).*master_port:(\\d+).*", "$1"));
    } finally {
      client.shutdown();
    }
  }

  private static RedisServerProcess nodeSubscribedTo(RedisClusterProcesses cluster, String channel) {
    for (RedisServerProcess node : cluster.nodes()) {
      RedisClient client = RedisClient.create(node.uri());
      try (StatefulRedisConnection<String, String> connection = client.connect()) {
        Long subscribers = connection.sync().pubsubNumsub(channel).get(channel);
        if (subscribers != null && subscribers > 0) {
          return node;
        }
      } finally {
        client.shutdown();
      }
    }
    throw new AssertionError("no node has a subscriber on " + channel);
  }

  static void scheduleWhenAvailable(JobQueue queue, String id) {
    await().atMost(Duration.ofSeconds(10)).ignoreExceptionsInstanceOf(DelayqException.class)
        .until(() -> queue.schedule(JobRequest.of(id).withId(id)) != null);
  }

  /**
   * Schedules jobs due soon, one at a time, remembering which schedules returned. Also used by
   * {@link SentinelFailoverIT}.
   */
  static final class Producer {
    final Set<String> acknowledged = ConcurrentHashMap.newKeySet();
    final AtomicInteger acknowledgedOnVictim = new AtomicInteger();
    final AtomicInteger failures = new AtomicInteger();
    final AtomicInteger notReplicated = new AtomicInteger();
    private final String kind;
    private final JobQueue queue;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private volatile Set<Integer> watched = Set.of();
    private final Thread thread;

    Producer(String kind, JobQueue queue) {
      this.kind = kind;
      this.queue = queue;
      this.thread = new Thread(this::run, "producer-" + kind);
    }

    void start() {
      thread.start();
    }

    /** Counts, from now on, acknowledged jobs on these partitions. */
    void watch(Set<Integer> partitions) {
      watched = Set.copyOf(partitions);
    }

    void stop() throws InterruptedException {
      running.set(false);
      thread.join(10_000);
    }

    private void run() {
      int n = 0;
      while (running.get()) {
        String id = kind + "-" + n++;
        try {
          queue.schedule(JobRequest.of(id).withId(id).withDelay(Duration.ofMillis(200)));
          acknowledged.add(id);
          if (watched.contains(io.delayq.internal.Ids.partitionOf(id, PARTITIONS))) {
            acknowledgedOnVictim.incrementAndGet();
          }
        } catch (NotReplicatedException e) {
          notReplicated.incrementAndGet();
          failures.incrementAndGet();
        } catch (RedisUnavailableException | OutcomeUnknownException e) {
          // why: an unknown outcome is not acknowledged: the job may exist or not, and is not counted
          failures.incrementAndGet();
          // why: back off a little while the cluster elects a new master, as a real producer would
          LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
      }
    }
  }
}
