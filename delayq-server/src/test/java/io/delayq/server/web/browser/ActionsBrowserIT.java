package io.delayq.server.web.browser;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.Delayq;
import io.delayq.JobInfo;
import io.delayq.JobQueue;
import io.delayq.JobRequest;
import io.delayq.JobState;
import io.delayq.LeasedJob;
import io.delayq.Schedule;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;

/**
 * Each action of the dashboard, clicked in a browser with a full session; the core API then says
 * whether it happened. Each test has its own queue.
 */
class ActionsBrowserIT {
  @RegisterExtension static final BrowserSession browser = new BrowserSession();
  private static BrowserDashboard dashboard;
  private static DashboardUse use;
  private static Delayq delayq;

  @BeforeAll
  static void start() {
    dashboard = BrowserDashboard.start();
    use = new DashboardUse(browser, dashboard);
    delayq = dashboard.delayq();
    use.login(BrowserDashboard.TOKEN, "queues");
  }

  @AfterAll
  static void stop() {
    if (dashboard != null) {
      dashboard.close();
    }
  }

  @Test
  void pauseAndResumeAQueue() {
    String name = dashboard.newQueue("pause");
    JobQueue queue = delayq.queue(name);
    queue.schedule(JobRequest.of("x").withId("j").withDelay(Duration.ofHours(1)));

    use.open("/", "queues");
    use.awaitOk(use.act(use.queueRow(name), "pause"));
    assertThat(queue.admin().stats().paused()).as("paused in Redis").isTrue();

    use.open("/queues/" + name, "queue");
    use.awaitOk(use.act(browser.driver(), "resume"));
    assertThat(queue.admin().stats().paused()).as("paused in Redis").isFalse();
    browser.screenshot("action-resume");
    use.assertClean();
  }

  @Test
  void cancelAScheduledJob() {
    String name = dashboard.newQueue("cancel");
    JobQueue queue = delayq.queue(name);
    queue.schedule(JobRequest.of("x").withId("c-1").withDelay(Duration.ofHours(1)));
    queue.schedule(JobRequest.of("x").withId("c-2").withDelay(Duration.ofHours(1)));

    use.open("/queues/" + name + "?state=scheduled", "queue");
    use.awaitOk(use.act(use.row("jobs", "c-1"), "cancel"));

    assertThat(queue.get("c-1")).as("c-1 after cancel").isEmpty();
    assertThat(queue.get("c-2")).as("c-2, not cancelled").isPresent();
    browser.waitUntil(d -> d.findElements(DashboardUse.rowOf("jobs", "c-1")).isEmpty());
    use.assertClean();
  }

  @Test
  void rescheduleAJobByADelay() {
    String name = dashboard.newQueue("reschedule");
    JobQueue queue = delayq.queue(name);
    queue.schedule(JobRequest.of("x").withId("r-1").withDelay(Duration.ofHours(3)));

    use.open("/queues/" + name + "/jobs/r-1", "job");
    WebElement button = DashboardUse.actionButton(browser.driver(), "reschedule");
    WebElement form = button.findElement(By.xpath("ancestor::form"));
    WebElement delay = form.findElement(By.name("delay"));
    delay.clear();
    delay.sendKeys("5m");
    Instant before = Instant.now();
    use.awaitOk(use.act(form, "reschedule"));

    JobInfo job = queue.get("r-1").orElseThrow();
    assertThat(job.runAt()).isBetween(before.plusSeconds(5 * 60 - 30), Instant.now().plusSeconds(5 * 60 + 30));
    browser.screenshot("action-reschedule");
    use.assertClean();
  }

  @Test
  void runAScheduledJobNow() {
    String name = dashboard.newQueue("run-now");
    JobQueue queue = delayq.queue(name);
    queue.schedule(JobRequest.of("x").withId("n-1").withDelay(Duration.ofHours(1)));

    use.open("/queues/" + name + "?state=scheduled", "queue");
    use.awaitOk(use.act(use.row("jobs", "n-1"), "run-now"));

    assertThat(queue.get("n-1").orElseThrow().runAt()).isBeforeOrEqualTo(Instant.now().plusSeconds(1));
    assertThat(queue.admin().stats().due()).isEqualTo(1);
    use.assertClean();
  }

  @Test
  void requeueADeadJob() {
    String name = dashboard.newQueue("requeue");
    JobQueue queue = delayq.queue(name);
    bury(queue, "d-1", "boom");

    use.open("/queues/" + name + "?state=dead", "queue");
    use.awaitOk(use.act(use.row("dead", "d-1"), "requeue"));

    JobInfo job = queue.get("d-1").orElseThrow();
    assertThat(job.state()).isEqualTo(JobState.SCHEDULED);
    assertThat(queue.admin().stats().dead()).isZero();
    use.assertClean();
  }

  @Test
  void deleteADeadJob() {
    String name = dashboard.newQueue("delete");
    JobQueue queue = delayq.queue(name);
    bury(queue, "x-1", "boom");
    bury(queue, "x-2", "boom");

    use.open("/queues/" + name + "?state=dead", "queue");
    use.awaitOk(use.act(use.row("dead", "x-1"), "delete"));

    assertThat(queue.get("x-1")).isEmpty();
    assertThat(queue.get("x-2").orElseThrow().state()).isEqualTo(JobState.DEAD);
    use.assertClean();
  }

  @Test
  void bulkRequeueOfMatchingDeadJobsAfterConfirmingTheirCount() {
    String name = dashboard.newQueue("bulk");
    JobQueue queue = delayq.queue(name);
    for (int i = 1; i <= 3; i++) {
      bury(queue, "b-" + i, "bulk-boom #" + i);
    }
    bury(queue, "keep-1", "another failure");

    use.open("/queues/" + name + "?state=dead", "queue");
    WebElement count = DashboardUse.actionButton(browser.driver(), "count");
    WebElement filter = count.findElement(By.xpath("ancestor::form"));
    List<WebElement> folded = filter.findElements(By.xpath("ancestor::details[not(@open)]/summary"));
    if (!folded.isEmpty()) {
      folded.get(0).click(); // the bulk panel is folded away until asked for
    }
    filter.findElement(By.name("error")).sendKeys("bulk-boom");
    count.click();
    WebElement confirm = browser.waitFor(By.cssSelector("[data-action='requeue-matching']"));
    assertThat(use.bodyText()).contains("3 dead jobs match");
    browser.screenshot("action-bulk-count");
    // dead after the count: not among the jobs the confirmation counted, so left alone
    bury(queue, "b-late", "bulk-boom late");

    use.awaitOk(use.act(confirm.findElement(By.xpath("ancestor::form")), "requeue-matching"));

    for (int i = 1; i <= 3; i++) {
      assertThat(queue.get("b-" + i).orElseThrow().state()).as("b-" + i).isEqualTo(JobState.SCHEDULED);
    }
    assertThat(queue.get("keep-1").orElseThrow().state()).as("keep-1, another error").isEqualTo(JobState.DEAD);
    assertThat(queue.get("b-late").orElseThrow().state()).as("b-late, dead after the count").isEqualTo(JobState.DEAD);
    use.assertClean();
  }

  @Test
  void pauseResumeAndRunASchedule() {
    String name = dashboard.newQueue("schedule");
    JobQueue queue = delayq.queue(name);
    String schedule = "tick-" + UUID.randomUUID().toString().substring(0, 8);
    queue.schedules().set(Schedule.every(schedule, Duration.ofHours(1)));

    use.open("/queues/" + name + "/schedules", "schedules");
    use.awaitOk(use.act(use.row("schedules", schedule), "schedule-pause"));
    assertThat(queue.schedules().get(schedule).orElseThrow().schedule().paused()).as("paused").isTrue();

    use.awaitOk(use.act(use.row("schedules", schedule), "schedule-resume"));
    assertThat(queue.schedules().get(schedule).orElseThrow().schedule().paused()).as("paused").isFalse();

    long firedBefore = queue.schedules().get(schedule).orElseThrow().fired();
    assertThat(queue.admin().stats().due()).isZero();
    use.awaitOk(use.act(use.row("schedules", schedule), "schedule-run"));
    await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(queue.admin().stats().due())
        .as("the occurrence run now, due").isEqualTo(1));
    assertThat(queue.schedules().get(schedule).orElseThrow().fired()).isGreaterThanOrEqualTo(firedBefore);
    browser.screenshot("action-schedule-run");
    use.assertClean();
  }

  /** Schedules {@code id} due now, claims it and buries it with {@code error}. */
  static void bury(JobQueue queue, String id, String error) {
    queue.schedule(JobRequest.of("payload of " + id).withId(id));
    LeasedJob job = queue.pull().claim(1, Duration.ofMinutes(5)).get(0);
    assertThat(job.id()).isEqualTo(id);
    queue.pull().bury(id, job.token(), error);
  }
}
