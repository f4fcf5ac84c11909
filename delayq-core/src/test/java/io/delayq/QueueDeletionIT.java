package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.delayq.embedded.RedisServerProcess;
import io.delayq.internal.Script;
import io.delayq.testing.TestRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Deleting a queue: everything goes, in bounded steps; held jobs block it unless forced. */
class QueueDeletionIT {
  private static final Instant FAR = Instant.parse("2100-01-01T00:00:00Z");
  private static Delayq delayq;
  private static RedisClient raw;
  private static StatefulRedisConnection<String, String> rawConnection;

  @BeforeAll
  static void connect() {
    delayq = Delayq.connect(TestRedis.url());
    raw = RedisClient.create(TestRedis.url());
    rawConnection = raw.connect();
  }

  @AfterAll
  static void close() {
    delayq.close();
    rawConnection.close();
    raw.shutdown();
  }

  /** Every key of the queue's (its settings and its partitions'), found by a scan. */
  /** The queue's keys, but for its deletion mark, which must expire by itself within two hours. */
  private static List<String> keysOf(String queue) {
    List<String> keys = new ArrayList<>();
    ScanIterator.scan(rawConnection.sync(), ScanArgs.Builder.matches("*dq:" + queue + "*").limit(1000))
        .forEachRemaining(keys::add);
    String mark = io.delayq.internal.Keys.historyDeleted(queue);
    if (keys.remove(mark)) {
      assertThat(rawConnection.sync().pttl(mark)).as("the deletion mark's time to live")
          .isBetween(1L, Duration.ofHours(2).toMillis());
    }
    return keys;
  }

  @Test
  void deletingRemovesEveryJobEveryKeyAndTheName() {
    String name = TestRedis.uniqueQueue("delete-all");
    JobQueue queue = delayq.queue(name, 3);
    for (int i = 0; i < 40; i++) {
      queue.schedule(JobRequest.of("later").withId("later-" + i).withRunAt(FAR).withOnDuplicate(DuplicatePolicy.KEEP));
    }
    for (int i = 0; i < 6; i++) {
      queue.schedule(JobRequest.of("now").withId("now-" + i).withMaxAttempts(1).withOnDuplicate(DuplicatePolicy.KEEP));
    }
    List<LeasedJob> claimed = queue.pull().claim(6, Duration.ofMillis(200));
    assertThat(claimed).hasSize(6);
    queue.pull().ack(claimed.get(0).id(), claimed.get(0).token()); // remembered for the idempotency window
    queue.pull().nack(claimed.get(1).id(), claimed.get(1).token(), Duration.ZERO, "boom"); // dead
    queue.admin().setDefaults(new QueueDefaults(7, Duration.ofSeconds(9)));
    await().atMost(Duration.ofSeconds(10)).until(() -> queue.admin().stats().expired() == 4);
    assertThat(keysOf(name)).isNotEmpty();
    assertThat(delayq.queueNames()).contains(name);

    long deleted = queue.admin().delete(false);

    assertThat(deleted).isEqualTo(40 + 4 + 1);
    assertThat(keysOf(name)).isEmpty();
    assertThat(delayq.queueNames()).doesNotContain(name);
    assertThat(delayq.existingQueue(name)).isEmpty();
    // The name starts afresh: another partition count is no longer refused, and the old defaults are gone.
    JobQueue again = delayq.queue(name, 5);
    assertThat(again.partitions()).isEqualTo(5);
    assertThat(again.admin().defaults().maxAttempts()).isEqualTo(JobRequest.DEFAULT_MAX_ATTEMPTS);
    assertThat(again.admin().stats()).isEqualTo(new QueueStats(name, 5, 0, 0, 0, 0, 0, false));
    assertThat(again.admin().delete(false)).isZero();
  }

  @Test
  void aQueueWhoseWorkersHoldJobsIsNotDeletedUnlessForced() {
    String name = TestRedis.uniqueQueue("delete-held");
    JobQueue queue = delayq.queue(name, 2);
    for (int i = 0; i < 10; i++) {
      queue.schedule(JobRequest.of("x").withId("job-" + i));
    }
    List<LeasedJob> held = queue.pull().claim(3, Duration.ofMinutes(5));
    QueueStats before = queue.admin().stats();

    assertThatThrownBy(() -> queue.admin().delete(false))
        .isInstanceOfSatisfying(QueueBusyException.class, e -> {
          assertThat(e.heldJobs()).isEqualTo(3);
          assertThat(e.deletedJobs()).isZero();
          assertThat(e.queue()).isEqualTo(name);
        })
        .hasMessageContaining("workers hold 3 of its jobs")
        .hasMessageContaining("force");

    // Nothing changed, and claiming goes on.
    // (the oldest due job's age grows while the test runs; its due time stays put)
    assertThat(queue.admin().stats()).usingRecursiveComparison().ignoringFields("oldestDueAge").isEqualTo(before);
    assertThat(delayq.existingQueue(name)).isPresent();
    assertThat(queue.pull().claim(1, Duration.ofMinutes(5))).hasSize(1);

    long deleted = queue.admin().delete(true);

    assertThat(deleted).isEqualTo(10);
    for (LeasedJob job : held) {
      assertThatThrownBy(() -> queue.pull().ack(job.id(), job.token())).isInstanceOf(LeaseExpiredException.class);
    }
    assertThat(keysOf(name)).isEmpty();
  }

  @Test
  void aPausedQueueStaysPausedWhenItsDeleteIsRefused() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("delete-paused"));
    queue.schedule(JobRequest.of("x").withId("a"));
    queue.schedule(JobRequest.of("x").withId("b"));
    LeasedJob held = queue.pull().claim(1, Duration.ofMinutes(5)).get(0);
    queue.admin().pause();

    assertThatThrownBy(() -> queue.admin().delete(false)).isInstanceOf(QueueBusyException.class);

    assertThat(queue.admin().stats().paused()).isTrue();
    assertThat(queue.pull().claim(1, Duration.ofMinutes(5))).isEmpty();
    // The way the refusal advises: paused, the held job is acked, and then the delete goes through.
    queue.pull().ack(held.id(), held.token());
    assertThat(queue.admin().delete(false)).isEqualTo(1);
  }

  @Test
  void aForcedDeleteRacingClaimsLeavesEachJobEitherAckedOrDeleted() throws Exception {
    String name = TestRedis.uniqueQueue("delete-race");
    JobQueue queue = delayq.queue(name, 4);
    int total = 3000;
    List<JobRequest> requests = new ArrayList<>();
    for (int i = 0; i < total; i++) {
      requests.add(JobRequest.of("x").withId("race-" + i));
    }
    queue.scheduleAll(requests);
    AtomicLong acked = new AtomicLong();
    AtomicLong refused = new AtomicLong();
    AtomicBoolean stop = new AtomicBoolean();
    ExecutorService workers = Executors.newFixedThreadPool(4);
    List<Future<?>> running = new ArrayList<>();
    for (int w = 0; w < 4; w++) {
      running.add(workers.submit(() -> {
        while (!stop.get()) {
          for (LeasedJob job : queue.pull().claim(20, Duration.ofMinutes(1))) {
            try {
              queue.pull().ack(job.id(), job.token());
              acked.incrementAndGet();
            } catch (LeaseExpiredException deletedMeanwhile) {
              refused.incrementAndGet();
            }
          }
        }
        return null;
      }));
    }
    try {
      await().atMost(Duration.ofSeconds(30)).until(() -> acked.get() >= 300);

      long deleted = queue.admin().delete(true);

      assertThat(queue.pull().claim(100, Duration.ofMinutes(1))).isEmpty();
      stop.set(true);
      for (Future<?> worker : running) {
        worker.get();
      }
      assertThat(acked.get() + deleted).as("acked %d, deleted %d", acked.get(), deleted).isEqualTo(total);
      assertThat(refused.get()).isLessThanOrEqualTo(deleted);
      assertThat(keysOf(name)).isEmpty();
    } finally {
      stop.set(true);
      workers.shutdownNow();
    }
  }

  @Test
  void aDeleteRemovesAtMostAThousandJobsPerRedisCall() {
    // A Redis of its own, whose slow log records every command with its arguments and duration.
    try (RedisServerProcess redis =
            RedisServerProcess.builder()
                .setting("slowlog-log-slower-than", "0")
                .setting("slowlog-max-len", "100000")
                .start();
        Delayq own = Delayq.connect(redis.uri())) {
      RedisClient client = RedisClient.create(redis.uri());
      try (StatefulRedisConnection<String, String> conn = client.connect()) {
        JobQueue queue = own.queue("bulk");
        List<JobRequest> requests = new ArrayList<>();
        for (int i = 0; i < 5000; i++) {
          requests.add(JobRequest.of("payload " + i).withId("bulk-" + i).withRunAt(FAR));
        }
        queue.scheduleAll(requests);
        // loads the delete's scripts, so that every purge below is one EVALSHA in the log
        own.queue("warm-up").admin().delete(false);
        conn.sync().slowlogReset();

        assertThat(queue.admin().delete(false)).isEqualTo(5000);

        List<Object> log = conn.sync().slowlogGet(100_000);
        List<Long> purgeMicros = new ArrayList<>();
        for (Object entry : log) {
          List<?> fields = (List<?>) entry;
          List<?> args = (List<?>) fields.get(3);
          if (args.get(0).toString().equalsIgnoreCase("EVALSHA") && args.get(1).equals(Script.PURGE.sha())) {
            // after EVALSHA, the SHA and the key count: the 11 keys, 7 shared arguments, then the batch
            assertThat(args.get(3 + 11 + 7)).isEqualTo("1000");
            purgeMicros.add((Long) fields.get(2));
          }
        }
        // 1,000 jobs per call: five calls empty the partition, and a last pass finds it empty.
        assertThat(purgeMicros).hasSize(6);
        System.out.printf("purge calls for 5,000 jobs: %d, longest %d us, all %s%n",
            purgeMicros.size(), purgeMicros.stream().mapToLong(Long::longValue).max().orElse(0), purgeMicros);
        // what is left: the time probe, and the two deleted queues' short-lived deletion marks
        assertThat(conn.sync().dbsize()).isEqualTo(conn.sync().exists("dq:time-probe",
            io.delayq.internal.Keys.historyDeleted("bulk"), io.delayq.internal.Keys.historyDeleted("warm-up")));
      } finally {
        client.shutdown();
      }
    }
  }

  @Test
  void readsNeverCreateAQueue() {
    String name = TestRedis.uniqueQueue("never-made");
    assertThat(delayq.existingQueue(name)).isEmpty();
    assertThat(keysOf(name)).isEmpty();
    assertThat(delayq.queueNames()).doesNotContain(name);
  }

  @Test
  void aReadWhileADeleteRunsDoesNotBringTheQueueBack() {
    String name = TestRedis.uniqueQueue("mid-delete");
    delayq.queue(name, 3).schedule(JobRequest.of("x").withRunAt(FAR));
    // A delete has removed the settings and not yet the name: the moment a read must not undo.
    rawConnection.sync().del("{dq:" + name + "}:settings");
    try (Delayq other = Delayq.connect(TestRedis.url())) {
      assertThat(other.existingQueue(name)).isEmpty();
    }
    assertThat(rawConnection.sync().exists("{dq:" + name + "}:settings")).isZero();
  }

  @Test
  void queueNamesComeInSortedPages() {
    String prefix = TestRedis.uniqueQueue("names");
    List<String> mine = new ArrayList<>();
    for (int i = 0; i < 7; i++) {
      mine.add(prefix + "-" + i);
      delayq.queue(prefix + "-" + i);
    }

    List<String> listed = new ArrayList<>();
    String cursor = null;
    int pages = 0;
    do {
      Page<String> page = delayq.queueNames(cursor, 3);
      assertThat(page.items()).hasSizeLessThanOrEqualTo(3);
      listed.addAll(page.items());
      cursor = page.nextCursor().orElse(null);
      pages++;
    } while (cursor != null);

    assertThat(listed).isSorted().doesNotHaveDuplicates().containsAll(mine);
    assertThat(pages).isEqualTo((listed.size() + 2) / 3);
    assertThatThrownBy(() -> delayq.queueNames("garbage", 3))
        .isInstanceOfSatisfying(InvalidRequestException.class, e -> assertThat(e.field()).isEqualTo("cursor"));
    assertThatThrownBy(() -> delayq.queueNames(null, 0)).isInstanceOf(InvalidRequestException.class);
  }

  @Test
  void aPauseOrResumeOfADeletedQueueWritesNothingAndSaysSo() {
    String name = TestRedis.uniqueQueue("delete-pause");
    JobQueue queue = delayq.queue(name, 4);
    queue.schedule(JobRequest.of("x").withId("x").withRunAt(FAR));
    queue.admin().pause();
    assertThat(queue.admin().stats().paused()).isTrue();
    queue.admin().delete(false);
    assertThat(keysOf(name)).isEmpty();

    assertThatThrownBy(() -> queue.admin().pause()).isInstanceOf(QueueConfigurationException.class)
        .hasMessageContaining("'" + name + "' does not exist").hasMessageContaining("nothing was paused");
    assertThatThrownBy(() -> queue.admin().resume()).isInstanceOf(QueueConfigurationException.class)
        .hasMessageContaining("nothing was resumed");
    assertThat(keysOf(name)).isEmpty();
    assertThat(delayq.queue(name, 4).admin().stats().paused()).isFalse();
    delayq.queue(name).admin().delete(false);
  }

  @Test
  void pausesRacingADeleteLeaveNothingOfTheQueueBehind() throws Exception {
    String name = TestRedis.uniqueQueue("delete-pause-race");
    JobQueue queue = delayq.queue(name, 16);
    List<JobRequest> jobs = new ArrayList<>();
    for (int i = 0; i < 5000; i++) {
      jobs.add(JobRequest.of("p").withId("j" + i).withRunAt(FAR));
    }
    queue.scheduleAll(jobs);
    ExecutorService pauser = Executors.newSingleThreadExecutor();
    try {
      AtomicBoolean deleted = new AtomicBoolean();
      AtomicLong accepted = new AtomicLong();
      AtomicLong refused = new AtomicLong();
      Future<?> pauses = pauser.submit(() -> {
        // why: one more after the delete ended, so that a pause surely meets a deleted queue too
        for (boolean last = false; !last; ) {
          last = deleted.get();
          try {
            queue.admin().pause();
            accepted.incrementAndGet();
          } catch (QueueConfigurationException gone) {
            refused.incrementAndGet();
          }
        }
      });
      await().atMost(Duration.ofSeconds(10)).until(() -> accepted.get() > 0);
      queue.admin().delete(true);
      deleted.set(true);
      pauses.get();

      assertThat(refused.get()).as("pauses refused after the delete").isPositive();
      assertThat(keysOf(name)).as("keys left by %s pauses during the delete", accepted.get()).isEmpty();
    } finally {
      pauser.shutdownNow();
    }
  }
}
