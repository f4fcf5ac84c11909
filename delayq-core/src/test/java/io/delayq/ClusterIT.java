package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.delayq.embedded.RedisClusterProcesses;
import io.delayq.embedded.RedisServerProcess;
import io.delayq.testing.TestRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * delayq on a real Redis Cluster of three masters and three replicas, started on loopback for this
 * class from the machine's {@code redis-server} (or the bundled one when there is none). {@link
 * ClusterOnRedis62IT} runs the same tests on the bundled Redis 6.2. The failover test builds its
 * own cluster, since it kills a node.
 */
class ClusterIT {
  private static RedisClusterProcesses cluster;
  private static Delayq delayq;

  @BeforeAll
  static void startCluster() {
    start(RedisClusterProcesses.builder());
  }

  static void start(RedisClusterProcesses.Builder builder) {
    cluster = builder.start();
    delayq = Delayq.connect(cluster.seedUrl());
  }

  @AfterAll
  static void stopCluster() {
    if (delayq != null) {
      delayq.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void heartbeatsHistoryHoldersAndNodesWorkAcrossTheMasters() {
    String name = TestRedis.uniqueQueue("cluster-dashboard");
    try (Delayq worker = Delayq.builder().redisUrl(cluster.seedUrl()).heartbeatInterval(Duration.ofMillis(200))
            .historyFlushInterval(Duration.ofMillis(200)).build()) {
      JobQueue queue = worker.queue(name, 6);
      List<JobRequest> jobs = new ArrayList<>();
      for (int i = 0; i < 12; i++) {
        jobs.add(JobRequest.of("x").withId("j" + i));
      }
      queue.scheduleAll(jobs);
      LeasedJob leased = queue.pull().claim(1, Duration.ofSeconds(30)).get(0);
      JobInfo info = delayq.queue(name).get(leased.id()).orElseThrow();
      assertThat(info.holder()).isEqualTo(worker.processId());
      assertThat(info.fencingToken()).isEqualTo(leased.token());
      queue.pull().ack(leased);
      try (Workers workers = queue.startWorkers(job -> {}, WorkerOptions.builder().concurrency(3).build())) {
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
          assertThat(delayq.workerProcesses()).filteredOn(p -> p.id().equals(worker.processId())).singleElement()
              .satisfies(p -> assertThat(p.queues()).containsExactly(new WorkerProcess.QueueWork(name, 3, 0)));
          long[] sums = new long[2];
          delayq.queue(name).admin().historyByMinute(5).forEach(b -> {
            sums[0] += b.scheduled();
            sums[1] += b.acked();
          });
          assertThat(sums).containsExactly(12, 12);
        });
      }
      assertThat(delayq.workerProcesses()).noneMatch(p -> p.id().equals(worker.processId()));
    }

    List<RedisNode> nodes = delayq.redisNodes();
    List<RedisNode> masters = nodes.stream().filter(n -> n.role().equals("master")).toList();
    assertThat(masters).hasSize(3).allMatch(n -> n.mode().equals("cluster"));
    assertThat(nodes).filteredOn(n -> n.role().equals("replica")).allMatch(n -> n.slotRanges().isEmpty());
    boolean[] covered = new boolean[16384];
    for (RedisNode master : masters) {
      assertThat(master.slotRanges()).isNotEmpty();
      for (String range : master.slotRanges()) {
        String[] ends = range.split("-");
        int from = Integer.parseInt(ends[0]);
        int to = Integer.parseInt(ends[ends.length - 1]);
        for (int slot = from; slot <= to; slot++) {
          assertThat(covered[slot]).as("slot %d served twice", slot).isFalse();
          covered[slot] = true;
        }
      }
    }
    for (int slot = 0; slot < covered.length; slot++) {
      assertThat(covered[slot]).as("slot %d", slot).isTrue();
    }
  }

  @Test
  void schedulesOnEveryMasterFireOncePerSecondAcrossTwoClients() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("cluster-schedules"), 16);
    List<String> names = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      names.add("tick-" + i);
      queue.schedules().set(Schedule.every("tick-" + i, Duration.ofSeconds(1)));
    }
    assertThat(queue.schedules().list()).extracting(ScheduleInfo::name).containsExactlyElementsOf(names);
    Map<String, java.time.Instant> fired = new ConcurrentHashMap<>();
    Set<String> twice = ConcurrentHashMap.newKeySet();
    JobHandler handler = job -> {
      if (fired.putIfAbsent(job.id(), job.runAt()) != null) {
        twice.add(job.id());
      }
    };
    try (Delayq second = Delayq.connect(cluster.seedUrls());
        Workers here = queue.startWorkers(handler, WorkerOptions.builder().build());
        Workers there = second.queue(queue.name()).startWorkers(handler, WorkerOptions.builder().build())) {
      await().atMost(Duration.ofSeconds(30)).until(() -> names.stream().allMatch(
          n -> fired.keySet().stream().filter(id -> id.startsWith(n + "@")).count() >= 4));
      for (String n : names) {
        queue.schedules().remove(n);
      }
    }
    assertThat(twice).isEmpty();
    for (String n : names) {
      List<java.time.Instant> dues = fired.entrySet().stream().filter(e -> e.getKey().startsWith(n + "@"))
          .map(Map.Entry::getValue).sorted().toList();
      for (int i = 1; i < dues.size(); i++) {
        assertThat(Duration.between(dues.get(i - 1), dues.get(i))).as("%s: one occurrence a second", n)
            .isEqualTo(Duration.ofSeconds(1));
      }
    }
  }

  @Test
  void sixteenPartitionsSpreadOverEveryMasterAndFiftyThousandJobsRunExactlyOnce() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("cluster-50k"), 16);
    int total = 50_000;
    List<JobRequest> requests = new ArrayList<>(total);
    for (int i = 0; i < total; i++) {
      requests.add(JobRequest.of("job " + i).withId("job-" + i).withDelay(Duration.ofMillis(i % 2_000)));
    }
    queue.scheduleAll(requests);
    assertThat(queue.admin().stats().scheduled()).isEqualTo(total);
    for (RedisServerProcess master : cluster.masters()) {
      assertThat(keysOfQueueOn(master, queue.name()))
          .as("delayq keys on master %s", master.uri())
          .isNotEmpty();
    }

    Map<String, AtomicInteger> deliveries = new ConcurrentHashMap<>();
    WorkerOptions options = WorkerOptions.builder().concurrency(8).build();
    try (Delayq second = Delayq.connect(cluster.seedUrls());
        Workers here = queue.startWorkers(job -> count(deliveries, job), options);
        Workers there = second.queue(queue.name()).startWorkers(job -> count(deliveries, job), options)) {
      await().atMost(Duration.ofSeconds(120)).until(() -> deliveries.size() == total && queue.admin().stats().active() == 0);
    }
    assertThat(deliveries.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
    assertThat(queue.admin().stats()).satisfies(s -> {
      assertThat(s.scheduled()).isZero();
      assertThat(s.active()).isZero();
      assertThat(s.dead()).isZero();
    });
  }

  @Test
  void lookupCancelRescheduleAndDeadLettersWorkByIdAcrossPartitions() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("cluster-by-id"), 16);
    for (int i = 0; i < 200; i++) {
      queue.schedule(JobRequest.of("p" + i).withId("order-" + i).withDelay(Duration.ofHours(1)));
    }
    for (int i = 0; i < 200; i++) {
      assertThat(queue.get("order-" + i)).map(JobInfo::payloadAsString).hasValue("p" + i);
    }
    for (int i = 0; i < 100; i++) {
      assertThat(queue.cancel("order-" + i)).isTrue();
    }
    assertThat(queue.get("order-5")).isEmpty();
    assertThat(queue.cancel("order-5")).isFalse();
    for (int i = 100; i < 150; i++) {
      queue.reschedule("order-" + i, Duration.ZERO);
    }
    assertThat(queue.admin().stats()).satisfies(s -> {
      assertThat(s.partitions()).isEqualTo(16);
      assertThat(s.scheduled()).isEqualTo(100);
      assertThat(s.due()).isEqualTo(50);
    });

    queue.admin().pause();
    assertThat(queue.admin().stats().paused()).isTrue();
    assertThat(queue.pull().claim(100, Duration.ofSeconds(5))).isEmpty();
    queue.admin().resume();
    List<LeasedJob> claimed = new ArrayList<>();
    await().atMost(Duration.ofSeconds(5)).until(() -> {
      claimed.addAll(queue.pull().claim(100, Duration.ofSeconds(30)));
      return claimed.size() == 50;
    });
    Set<String> ids = new HashSet<>();
    for (LeasedJob job : claimed) {
      ids.add(job.id());
      queue.pull().nack(job.id(), job.token(), Duration.ZERO, "boom");
    }
    assertThat(ids).hasSize(50).allMatch(id -> Integer.parseInt(id.substring(6)) >= 100);

    JobQueue doomed = delayq.queue(TestRedis.uniqueQueue("cluster-dead"), 16);
    for (int i = 0; i < 40; i++) {
      doomed.schedule(JobRequest.of("d" + i).withId("dead-" + i).withMaxAttempts(1));
    }
    try (Workers failing = doomed.startWorkers(job -> {
      throw new IllegalStateException("always fails");
    }, WorkerOptions.builder().concurrency(4).build())) {
      await().atMost(Duration.ofSeconds(20)).until(() -> doomed.admin().stats().dead() == 40);
    }
    List<JobInfo> dead = doomed.admin().deadJobs(1000);
    assertThat(dead).hasSize(40).allSatisfy(j -> assertThat(j.lastError()).contains("always fails"));
    assertThat(doomed.admin().requeueDead("dead-7")).isTrue();
    assertThat(doomed.get("dead-7")).map(JobInfo::state).hasValue(JobState.SCHEDULED);
    assertThat(doomed.admin().deleteDead("dead-8")).isTrue();
    assertThat(doomed.admin().stats().dead()).isEqualTo(38);
  }

  @Test
  void listingMergesSixteenPartitionsOverEveryMasterAndDeleteLeavesNoKeyAnywhere() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("cluster-list"), 16);
    java.time.Instant far = java.time.Instant.parse("2100-01-01T00:00:00Z");
    List<JobRequest> requests = new ArrayList<>();
    for (int i = 0; i < 3_000; i++) {
      requests.add(JobRequest.of("p" + i).withId(String.format("job-%04d", i)).withRunAt(far.plusMillis(i / 10)));
    }
    queue.scheduleAll(requests);

    List<String> listed = new ArrayList<>();
    String cursor = null;
    do {
      Page<JobInfo> page = queue.admin().listJobs(JobFilter.SCHEDULED, cursor, 250);
      page.items().forEach(job -> listed.add(job.id()));
      cursor = page.nextCursor().orElse(null);
    } while (cursor != null);
    assertThat(listed).containsExactlyElementsOf(requests.stream().map(JobRequest::id).toList());

    assertThat(queue.admin().delete(false)).isEqualTo(3_000);
    for (RedisServerProcess master : cluster.masters()) {
      assertThat(keysOfQueueOn(master, queue.name())).as("keys on master %s", master.uri()).isEmpty();
    }
    assertThat(delayq.existingQueue(queue.name())).isEmpty();
  }

  @Test
  void oneNodeUrlOrASeedListFindsTheWholeCluster() {
    RedisServerProcess replica = cluster.replicas().get(0);
    String seeds = replica.uri() + "," + cluster.masters().get(1).uri().replace("redis://", "");
    try (Delayq viaReplica = Delayq.connect(replica.uri());
        Delayq viaSeeds = Delayq.connect(seeds)) {
      String name = TestRedis.uniqueQueue("cluster-seeds");
      JobQueue a = viaReplica.queue(name, 8);
      for (int i = 0; i < 50; i++) {
        a.schedule(JobRequest.of("x").withId("s-" + i).withDelay(Duration.ofMinutes(5)));
      }
      JobQueue b = viaSeeds.queue(name);
      assertThat(b.partitions()).isEqualTo(8);
      assertThat(b.admin().stats().scheduled()).isEqualTo(50);
      assertThat(b.get("s-17")).isPresent();
    }
  }

  @Test
  void severalUrlsNamingOneStandaloneRedisAreRefused() {
    String standalone = TestRedis.url();
    assertThatThrownBy(() -> Delayq.connect(standalone + "," + standalone))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("is not in cluster mode")
        .hasMessageContaining("Give one URL for a single Redis");
    assertThatThrownBy(() -> Delayq.connect(cluster.seedUrl() + "/3"))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("a Redis Cluster has only database 0");
  }

  @Test
  void durableSchedulesWaitForAReplica() {
    try (Delayq durable = Delayq.builder().redisUrl(cluster.seedUrl()).waitForReplicas(1, Duration.ofSeconds(2)).build();
        Delayq tooDemanding =
            Delayq.builder().redisUrl(cluster.seedUrl()).waitForReplicas(2, Duration.ofMillis(200)).build()) {
      String name = TestRedis.uniqueQueue("cluster-durable");
      JobQueue queue = durable.queue(name, 16);
      List<JobRequest> requests = new ArrayList<>();
      for (int i = 0; i < 500; i++) {
        requests.add(JobRequest.of("d").withId("durable-" + i).withDelay(Duration.ofMinutes(1)));
      }
      assertThat(queue.scheduleAll(requests)).hasSize(500);
      assertThat(queue.schedule(JobRequest.of("one").withId("single")).id()).isEqualTo("single");

      // every master has one replica, so two can never confirm
      JobQueue same = tooDemanding.queue(name);
      assertThatThrownBy(() -> same.schedule(JobRequest.of("x").withId("needs-two")))
          .isInstanceOfSatisfying(NotReplicatedException.class, e -> {
            assertThat(e.required()).isEqualTo(2);
            assertThat(e.confirmed()).isEqualTo(1);
            assertThat(e.unconfirmedIds()).containsExactly("needs-two");
          })
          .hasMessageContaining("only 1 of 2 required replica(s) confirmed");
      assertThat(queue.get("needs-two")).as("written to the master all the same").isPresent();
    }
  }

  private static void count(Map<String, AtomicInteger> deliveries, LeasedJob job) {
    deliveries.computeIfAbsent(job.id(), id -> new AtomicInteger()).incrementAndGet();
  }

  private static List<String> keysOfQueueOn(RedisServerProcess node, String queue) {
    RedisClient client = RedisClient.create(node.uri());
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      return TestRedis.keysMatching(connection, "{dq:" + queue + ":*");
    } finally {
      client.shutdown();
    }
  }
}
