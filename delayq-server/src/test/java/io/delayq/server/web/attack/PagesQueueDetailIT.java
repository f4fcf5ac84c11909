package io.delayq.server.web.attack;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayq.JobQueue;
import io.delayq.JobRequest;
import io.delayq.server.web.attack.AttackServer.Answer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The queue detail page promises the next due jobs, 50 per page. It lists them with delayq-core's
 * {@code listJobs}, which reads whole records and ends a page at 1 MiB of payload: on a queue of
 * large jobs (700 KiB each, well within the payload limit) every page shows one job, so the
 * operator pages through jobs one at a time, and each page reads a megabyte it never shows.
 */
class PagesQueueDetailIT {
  private static final Pattern ROW = Pattern.compile("<tr data-row=\"([^\"]+)\"");
  private static AttackServer server;

  @BeforeAll
  static void start() {
    server = PagesAttack.open();
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void aQueueOfLargeJobsShowsAFullPageOfThem() {
    String name = AttackServer.newQueue("atk-bigpage");
    JobQueue queue = AttackServer.delayq().queue(name);
    queue.cancel("seed");
    List<JobRequest> jobs = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      jobs.add(JobRequest.of(new byte[700 * 1024]).withId("big" + i).withDelay(Duration.ofHours(1).plusSeconds(i)));
    }
    queue.scheduleAll(jobs);
    assertThat(queue.admin().stats().scheduled()).isEqualTo(10);

    Answer page = PagesAttack.get(server, "/queues/" + name + "?state=scheduled");
    assertThat(page.status()).isEqualTo(200);
    List<String> rows = new ArrayList<>();
    Matcher m = ROW.matcher(page.body());
    while (m.find()) {
      rows.add(m.group(1));
    }
    assertThat(rows).as("rows of the first page of 10 scheduled jobs (page size 50)").hasSize(10);
  }
}
