package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.delayq.testing.TestRedis;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Listing a queue's jobs by state: order, merge over partitions, cursors, the byte cap. */
class JobListingIT {
  private static final Instant FAR = Instant.parse("2100-01-01T00:00:00Z");
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
  void aPageOfAWideQueueOfLargeJobsReadsOnlyTheRecordsItReturns() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("list-wide-large"), 16);
    String large = "L".repeat(900_000);
    for (int i = 0; queue.admin().stats().scheduled() < 16 || i < 16; i++) {
      queue.schedule(JobRequest.of(large).withId("big-" + i).withRunAt(FAR.plusSeconds(i)));
    }
    long before = outputBytes();
    Page<JobInfo> page = queue.admin().listJobs(JobFilter.SCHEDULED, null, 100);
    long read = outputBytes() - before;
    assertThat(page.items()).hasSize(1);
    assertThat(page.items().get(0).payloadAsString()).isEqualTo(large);
    assertThat(page.nextCursor()).isPresent();
    // one record of 900 KB came from Redis, not one from each of the 16 partitions
    assertThat(read).as("bytes Redis sent for one page").isLessThan(3_000_000);
    List<JobInfo> every = all(queue, JobFilter.SCHEDULED, 100);
    assertThat(every).extracting(JobInfo::id).doesNotHaveDuplicates();
    assertThat(every).hasSize((int) queue.admin().stats().scheduled());
    assertThat(every).isSortedAccordingTo(by(JobInfo::runAt));
  }

  private static long outputBytes() {
    io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create(TestRedis.url());
    try (var connection = client.connect()) {
      java.util.regex.Matcher m = java.util.regex.Pattern.compile("total_net_output_bytes:(\\d+)")
          .matcher(connection.sync().info("stats"));
      assertThat(m.find()).isTrue();
      return Long.parseLong(m.group(1));
    } finally {
      client.shutdown();
    }
  }

  /** Every page of a listing, checked to be at most {@code limit} long, until the last. */
  private static List<Page<JobInfo>> pages(JobQueue queue, JobFilter filter, int limit) {
    List<Page<JobInfo>> pages = new ArrayList<>();
    String cursor = null;
    do {
      Page<JobInfo> page = queue.admin().listJobs(filter, cursor, limit);
      assertThat(page.items()).hasSizeLessThanOrEqualTo(limit);
      pages.add(page);
      cursor = page.nextCursor().orElse(null);
      assertThat(pages).as("pages").hasSizeLessThan(10_000);
    } while (cursor != null);
    return pages;
  }

  private static List<JobInfo> all(JobQueue queue, JobFilter filter, int limit) {
    return pages(queue, filter, limit).stream().flatMap(p -> p.items().stream()).toList();
  }

  private static Comparator<JobInfo> by(Function<JobInfo, Instant> time) {
    return Comparator.comparing(time)
        .thenComparing(j -> j.id().getBytes(StandardCharsets.UTF_8), Arrays::compareUnsigned);
  }

  @Test
  void scheduledJobsComeInDueTimeOrderMergedOverPartitionsEachOnce() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("list-order"), 4);
    List<JobRequest> requests = new ArrayList<>();
    for (int i = 0; i < 250; i++) {
      // seven due times, so that many jobs share one and the id decides among them
      requests.add(JobRequest.of("p" + i).withId("job-" + i).withRunAt(FAR.plusMillis(i % 7)).withMaxAttempts(4));
    }
    queue.scheduleAll(requests);

    List<Page<JobInfo>> pages = pages(queue, JobFilter.SCHEDULED, 37);
    List<JobInfo> listed = pages.stream().flatMap(p -> p.items().stream()).toList();

    assertThat(pages).hasSize(7);
    assertThat(pages.subList(0, 6)).allSatisfy(p -> assertThat(p.items()).hasSize(37));
    assertThat(listed).extracting(JobInfo::id).doesNotHaveDuplicates().hasSize(250);
    assertThat(listed).isSortedAccordingTo(by(JobInfo::runAt));
    JobInfo first = listed.get(0);
    assertThat(first).isEqualTo(queue.get(first.id()).orElseThrow());
    assertThat(first.state()).isEqualTo(JobState.SCHEDULED);
    assertThat(first.maxAttempts()).isEqualTo(4);
    assertThat(first.payloadAsString()).isEqualTo("p" + first.id().substring(4));
  }

  @Test
  void dueListsOnlyTheScheduledJobsWhoseTimeHasComeByTheRedisClock() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("list-due"), 2);
    for (int i = 0; i < 30; i++) {
      queue.schedule(JobRequest.of("x").withId("due-" + i).withRunAt(Instant.EPOCH.plusMillis(i)));
      queue.schedule(JobRequest.of("x").withId("later-" + i).withDelay(Duration.ofHours(1)));
    }

    List<JobInfo> due = all(queue, JobFilter.DUE, 7);

    assertThat(due).extracting(JobInfo::id).hasSize(30).allMatch(id -> id.startsWith("due-"));
    assertThat(due).isSortedAccordingTo(by(JobInfo::runAt));
    assertThat(all(queue, JobFilter.SCHEDULED, 1000)).hasSize(60);
  }

  @Test
  void heldJobsAreListedWithTheirLeaseActiveWhileItRunsThenExpired() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("list-held"), 3);
    for (int i = 0; i < 12; i++) {
      queue.schedule(JobRequest.of("job " + i).withId("held-" + i));
    }
    List<LeasedJob> long_ = queue.pull().claim(8, Duration.ofMinutes(5));
    List<LeasedJob> short_ = queue.pull().claim(4, Duration.ofMillis(300));
    assertThat(long_).hasSize(8);
    assertThat(short_).hasSize(4);

    await().atMost(Duration.ofSeconds(10)).until(() -> all(queue, JobFilter.EXPIRED, 3).size() == 4);
    List<JobInfo> active = all(queue, JobFilter.ACTIVE, 3);
    List<JobInfo> expired = all(queue, JobFilter.EXPIRED, 3);

    Map<String, Instant> leases = new HashMap<>();
    long_.forEach(job -> leases.put(job.id(), job.leaseUntil()));
    assertThat(active).hasSize(8).allSatisfy(job -> {
      assertThat(job.state()).isEqualTo(JobState.ACTIVE);
      assertThat(job.leaseUntil()).isEqualTo(leases.get(job.id()));
      assertThat(job.attempts()).isEqualTo(1);
      assertThat(job.payloadAsString()).isEqualTo("job " + job.id().substring(5));
    });
    assertThat(active).isSortedAccordingTo(by(JobInfo::leaseUntil));
    assertThat(expired).extracting(JobInfo::id).containsExactlyInAnyOrderElementsOf(short_.stream().map(LeasedJob::id).toList());
    assertThat(expired).allSatisfy(job -> assertThat(job.state()).isEqualTo(JobState.EXPIRED));
    assertThat(all(queue, JobFilter.SCHEDULED, 100)).isEmpty();
  }

  @Test
  void deadJobsAreListedOldestFirstWithTheirLastError() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("list-dead"), 2);
    for (int i = 0; i < 5; i++) {
      queue.schedule(JobRequest.of("d").withId("dead-" + i).withMaxAttempts(1));
      LeasedJob job = queue.pull().claim(1, Duration.ofMinutes(1)).get(0);
      queue.pull().nack(job.id(), job.token(), Duration.ZERO, "boom " + job.id());
    }

    List<JobInfo> dead = all(queue, JobFilter.DEAD, 2);

    assertThat(dead).hasSize(5).isSortedAccordingTo(by(JobInfo::deadAt));
    assertThat(dead).allSatisfy(job -> {
      assertThat(job.state()).isEqualTo(JobState.DEAD);
      assertThat(job.lastError()).isEqualTo("boom " + job.id());
      assertThat(job.attempts()).isEqualTo(1);
    });
  }

  @Test
  void aPageStartsAfterThePreviousOneEvenWhenTheJobAtItsCursorIsGone() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("list-gone"), 3);
    List<JobRequest> requests = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      requests.add(JobRequest.of("x").withId(String.format("tie-%03d", i)).withRunAt(FAR));
    }
    queue.scheduleAll(requests);

    List<String> seen = new ArrayList<>();
    List<String> cancelled = new ArrayList<>();
    String cursor = null;
    do {
      Page<JobInfo> page = queue.admin().listJobs(JobFilter.SCHEDULED, cursor, 50);
      page.items().forEach(job -> seen.add(job.id()));
      // the job the cursor stands for goes, and so does the one right after it
      String last = page.items().get(page.items().size() - 1).id();
      int next = Integer.parseInt(last.substring(4)) + 1;
      for (String id : List.of(last, String.format("tie-%03d", next))) {
        if (queue.cancel(id)) {
          cancelled.add(id);
        }
      }
      cursor = page.nextCursor().orElse(null);
    } while (cursor != null);

    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      expected.add(String.format("tie-%03d", i));
    }
    expected.removeAll(cancelled.stream().filter(id -> !seen.contains(id)).toList());
    assertThat(seen).containsExactlyElementsOf(expected);
  }

  @Test
  void aPageHoldsAtMostAboutOneMebibyteOfPayloadsAndAtLeastOneJob() {
    for (int partitions : new int[] {1, 2}) {
      JobQueue queue = delayq.queue(TestRedis.uniqueQueue("list-bytes"), partitions);
      byte[] big = new byte[400 * 1024];
      for (int i = 0; i < 5; i++) {
        queue.schedule(JobRequest.of(big).withId("big-" + i).withRunAt(FAR.plusMillis(i)));
      }
      queue.schedule(JobRequest.of(new byte[1024 * 1024]).withId("huge").withRunAt(FAR.plusMillis(10)));
      queue.schedule(JobRequest.of("small").withId("small").withRunAt(FAR.plusMillis(11)));

      List<Page<JobInfo>> pages = pages(queue, JobFilter.SCHEDULED, 1000);

      assertThat(pages).allSatisfy(page -> {
        assertThat(page.items()).isNotEmpty();
        long bytes = page.items().stream().mapToLong(job -> job.payload().length).sum();
        assertThat(page.items().size() == 1 || bytes <= 1024 * 1024).as("page of %d bytes", bytes).isTrue();
      });
      assertThat(pages.stream().flatMap(p -> p.items().stream()).map(JobInfo::id))
          .containsExactly("big-0", "big-1", "big-2", "big-3", "big-4", "huge", "small");
      if (partitions == 1) {
        assertThat(pages).extracting(p -> p.items().size()).containsExactly(2, 2, 1, 1, 1);
      }
    }
  }

  @Test
  void aCursorThatWasAlteredOrBelongsToAnotherListingIsRefused() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("list-cursor"));
    JobQueue other = delayq.queue(TestRedis.uniqueQueue("list-cursor-other"));
    for (int i = 0; i < 3; i++) {
      queue.schedule(JobRequest.of("x").withId("c-" + i).withRunAt(FAR));
      other.schedule(JobRequest.of("x").withId("c-" + i).withRunAt(FAR));
    }
    String cursor = queue.admin().listJobs(JobFilter.SCHEDULED, null, 1).nextCursor().orElseThrow();
    assertThat(queue.admin().listJobs(JobFilter.SCHEDULED, cursor, 10).items()).extracting(JobInfo::id)
        .containsExactly("c-1", "c-2");

    byte[] bytes = Base64.getUrlDecoder().decode(cursor);
    bytes[bytes.length - 12] ^= 1; // inside the id
    String altered = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    for (String bad : List.of(altered, cursor.substring(0, cursor.length() - 2), "not a cursor!", "", "AAAA")) {
      assertThatThrownBy(() -> queue.admin().listJobs(JobFilter.SCHEDULED, bad, 10))
          .isInstanceOfSatisfying(InvalidRequestException.class, e -> assertThat(e.field()).isEqualTo("cursor"))
          .hasMessageContaining("nextCursor of the previous page");
    }
    assertThatThrownBy(() -> queue.admin().listJobs(JobFilter.DUE, cursor, 10)).isInstanceOf(InvalidRequestException.class);
    assertThatThrownBy(() -> other.admin().listJobs(JobFilter.SCHEDULED, cursor, 10)).isInstanceOf(InvalidRequestException.class);
    assertThatThrownBy(() -> queue.admin().listJobs(JobFilter.SCHEDULED, null, 0))
        .isInstanceOf(InvalidRequestException.class).hasMessageContaining("limit: must be between 1 and 1000; got 0");
    assertThatThrownBy(() -> queue.admin().listJobs(JobFilter.SCHEDULED, null, 1001)).isInstanceOf(InvalidRequestException.class);
  }

  @Test
  void anEmptyQueueListsOneEmptyLastPage() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("list-empty"), 3);
    for (JobFilter filter : JobFilter.values()) {
      Page<JobInfo> page = queue.admin().listJobs(filter, null, 10);
      assertThat(page.items()).isEmpty();
      assertThat(page.nextCursor()).isEmpty();
    }
  }

  @Test
  void summariesListAFullPageOfLargeJobsWithoutTheirPayloads() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("list-summaries"), 2);
    byte[] big = new byte[700 * 1024];
    Arrays.fill(big, (byte) 'x');
    for (int i = 0; i < 10; i++) {
      queue.schedule(JobRequest.of(big).withId("big-" + i).withRunAt(FAR.plusMillis(i)).withMaxAttempts(4));
    }
    queue.schedule(JobRequest.ofJson("{\"a\":1}").withId("json").withRunAt(FAR.plusMillis(20)));

    Page<JobSummary> page = queue.admin().listJobSummaries(JobFilter.SCHEDULED, null, 50);

    assertThat(page.nextCursor()).isEmpty();
    assertThat(page.items()).extracting(JobSummary::id).containsExactly(
        "big-0", "big-1", "big-2", "big-3", "big-4", "big-5", "big-6", "big-7", "big-8", "big-9", "json");
    assertThat(page.items()).allSatisfy(s -> assertThat(s.job().payload()).isEmpty());
    JobSummary first = page.items().get(0);
    assertThat(first.payloadBytes()).isEqualTo(700 * 1024);
    assertThat(first.job().maxAttempts()).isEqualTo(4);
    assertThat(first.job().runAt()).isEqualTo(FAR);
    assertThat(first.job().createdAt()).isNotNull();
    JobSummary json = page.items().get(10);
    assertThat(json.payloadBytes()).isEqualTo(7);
    assertThat(json.job().payloadIsJson()).isTrue();
    // the same jobs, with their payloads, as listJobs gives them
    assertThat(all(queue, JobFilter.SCHEDULED, 1000)).extracting(JobInfo::id)
        .containsExactlyElementsOf(page.items().stream().map(JobSummary::id).toList());

    List<String> paged = new ArrayList<>();
    String cursor = null;
    do {
      Page<JobSummary> next = queue.admin().listJobSummaries(JobFilter.SCHEDULED, cursor, 3);
      assertThat(next.items()).hasSizeBetween(1, 3);
      next.items().forEach(s -> paged.add(s.id()));
      cursor = next.nextCursor().orElse(null);
    } while (cursor != null);
    assertThat(paged).containsExactlyElementsOf(page.items().stream().map(JobSummary::id).toList());

    String jobsCursor = queue.admin().listJobs(JobFilter.SCHEDULED, null, 1).nextCursor().orElseThrow();
    assertThatThrownBy(() -> queue.admin().listJobSummaries(JobFilter.SCHEDULED, jobsCursor, 3))
        .isInstanceOf(InvalidRequestException.class);
  }
}
