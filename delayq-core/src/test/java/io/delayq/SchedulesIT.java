package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.delayq.testing.TestRedis;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Recurring schedules on a real Redis: storing, firing, pausing, removing. */
class SchedulesIT {
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
  void anIntervalScheduleFiresOncePerOccurrenceAtItsDueTimes() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("every"), 4);
    ScheduleInfo stored = queue.schedules().set(Schedule.every("tick", Duration.ofMillis(1000)).withPayload("hi"));
    assertThat(stored.version()).isEqualTo(1);
    assertThat(stored.pendingJobId()).startsWith("tick@");
    ConcurrentMap<String, Instant> runs = new ConcurrentHashMap<>();
    try (Workers workers = queue.startWorkers(job -> runs.put(job.id(), job.runAt()), WorkerOptions.builder().build())) {
      await().atMost(Duration.ofSeconds(10)).until(() -> runs.size() >= 4);
    }
    List<Instant> dues = runs.values().stream().sorted().toList();
    for (int i = 1; i < dues.size(); i++) {
      assertThat(Duration.between(dues.get(i - 1), dues.get(i))).isEqualTo(Duration.ofSeconds(1));
    }
    assertThat(runs.keySet()).allSatisfy(id -> assertThat(id).startsWith("tick@"));
    ScheduleInfo after = queue.schedules().get("tick").orElseThrow();
    assertThat(after.fired()).isGreaterThanOrEqualTo(4);
    assertThat(after.skipped()).isZero();
    assertThat(after.nextRun()).isAfter(dues.get(dues.size() - 1));
  }

  @Test
  void pauseRemovesThePendingOccurrenceAndResumeStartsFromNow() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("pause"));
    ScheduleInfo stored = queue.schedules().set(Schedule.every("p", Duration.ofMinutes(1)));
    assertThat(queue.get(stored.pendingJobId())).isPresent();
    ScheduleInfo paused = queue.schedules().pause("p");
    assertThat(paused.schedule().paused()).isTrue();
    assertThat(paused.nextRun()).isNull();
    assertThat(queue.get(stored.pendingJobId())).isEmpty();
    ScheduleInfo resumed = queue.schedules().resume("p");
    assertThat(resumed.nextRun()).isNotNull();
    assertThat(queue.get(resumed.pendingJobId())).isPresent();
    assertThat(queue.schedules().remove("p")).isTrue();
    assertThat(queue.get(resumed.pendingJobId())).isEmpty();
    assertThat(queue.schedules().get("p")).isEmpty();
    assertThat(queue.schedules().remove("p")).isFalse();
    assertThatThrownBy(() -> queue.schedules().pause("p")).isInstanceOf(ScheduleNotFoundException.class);
  }

  @Test
  void deletingAQueueDeletesItsSchedulesAndTheirPendingOccurrences() {
    String name = TestRedis.uniqueQueue("delete");
    JobQueue queue = delayq.queue(name, 4);
    queue.schedules().set(Schedule.every("a", Duration.ofMinutes(1)));
    queue.schedules().set(Schedule.cron("b", "0 9 * * *"));
    assertThat(queue.schedules().list()).extracting(ScheduleInfo::name).containsExactly("a", "b");
    assertThat(queue.admin().delete(false)).isEqualTo(2);
    JobQueue again = delayq.queue(name, 4);
    assertThat(again.schedules().list()).isEmpty();
    assertThat(again.admin().stats().scheduled()).isZero();
  }

  @Test
  void aScheduleThatWouldNeverFireIsRefusedWithTheReason() {
    assertThatThrownBy(() -> Schedule.cron("x", "0 0 30 2 *")).isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("never");
    assertThatThrownBy(() -> Schedule.every("x", Duration.ofMillis(10))).isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("at least 1 second");
    assertThatThrownBy(() -> Schedule.cron("bad name!", "@daily")).isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("schedule name");
  }

  @Test
  void aForwardedQueueKeepsItsScheduleGoing() throws Exception {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("forwarded"));
    String list = "{dq:" + queue.name() + ":0}:ready";
    queue.schedules().set(Schedule.every("push", Duration.ofSeconds(1)).withPayload("beat"));
    try (io.lettuce.core.RedisClient redis = io.lettuce.core.RedisClient.create(TestRedis.url());
        var connection = redis.connect();
        Forwarder forwarder = queue.forwardToList(ListForwarding.toList(list).build())) {
      await().atMost(Duration.ofSeconds(10)).until(() -> connection.sync().llen(list) >= 3);
      assertThat(connection.sync().lrange(list, 0, -1)).containsOnly("beat");
      queue.schedules().remove("push");
      connection.sync().del(list);
    }
    assertThat(queue.admin().stats().scheduled()).isZero();
  }

  @Test
  void schedulesArePagedByNameAcrossPartitions() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("paged"), 8);
    List<String> names = new java.util.ArrayList<>();
    for (int i = 0; i < 25; i++) {
      names.add(String.format("s-%02d", i));
      queue.schedules().set(Schedule.every(names.get(i), Duration.ofHours(1)));
    }
    List<String> seen = new java.util.ArrayList<>();
    String cursor = null;
    int pages = 0;
    do {
      Page<ScheduleInfo> page = queue.schedules().list(cursor, 10);
      page.items().forEach(info -> seen.add(info.name()));
      cursor = page.nextCursor().orElse(null);
      pages++;
    } while (cursor != null);
    assertThat(seen).containsExactlyElementsOf(names);
    assertThat(pages).isEqualTo(3);
    assertThatThrownBy(() -> queue.schedules().list(null, 0)).isInstanceOf(InvalidRequestException.class);
  }

  @Test
  void namesThatReadAsPathStepsAreRefused() {
    for (String name : new String[] {".", ".."}) {
      assertThatThrownBy(() -> Schedule.every(name, Duration.ofMinutes(1))).isInstanceOf(InvalidRequestException.class)
          .hasMessageContaining("path step");
    }
    assertThat(Schedule.every("...", Duration.ofMinutes(1)).name()).isEqualTo("...");
  }
}
