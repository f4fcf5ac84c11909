package io.delayq.server.web.browser;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.Delayq;
import io.delayq.JobInfo;
import io.delayq.JobQueue;
import io.delayq.JobRequest;
import io.delayq.LeasedJob;
import io.delayq.Schedule;
import io.delayq.ScheduleInfo;
import io.delayq.WorkerOptions;
import io.delayq.Workers;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebElement;

/**
 * Every page of the dashboard, in a browser, on real data made through the core API in this
 * class's own queues; each is screenshotted, and none may reach another host or log a console
 * error (a CSP violation among them).
 */
class PagesBrowserIT {
  @RegisterExtension static final BrowserSession browser = new BrowserSession();
  static final String XSS = "<script>alert(1)</script><img src=x onerror=\"alert(2)\">";

  private static BrowserDashboard dashboard;
  private static DashboardUse use;
  private static Delayq delayq;
  /** A job in each state. */
  private static String states;
  private static String paused;
  private static String working;
  private static String scheduled;
  private static String scheduleName;
  private static Workers workers;

  @BeforeAll
  static void data() {
    dashboard = BrowserDashboard.start();
    use = new DashboardUse(browser, dashboard);
    delayq = dashboard.delayq();

    states = dashboard.newQueue("states");
    JobQueue queue = delayq.queue(states);
    queue.schedule(JobRequest.of("held by a worker").withId("active-1"));
    assertThat(queue.pull().claim(1, Duration.ofMinutes(10))).extracting(LeasedJob::id).containsExactly("active-1");
    queue.schedule(JobRequest.of("failed for good").withId("dead-1"));
    LeasedJob dying = queue.pull().claim(1, Duration.ofMinutes(10)).get(0);
    assertThat(dying.id()).isEqualTo("dead-1");
    queue.pull().bury(dying.id(), dying.token(), "payment gateway said no: card declined");
    queue.schedule(JobRequest.of("its lease ran out").withId("expired-1"));
    assertThat(queue.pull().claim(1, Duration.ofSeconds(1))).extracting(LeasedJob::id).containsExactly("expired-1");
    queue.schedule(JobRequest.of("waiting for a worker").withId("due-1"));
    queue.schedule(JobRequest.ofJson("{\"order\":42,\"items\":[\"a\",\"b\"],\"note\":\"café\"}")
        .withId("later-json").withDelay(Duration.ofHours(1)));
    queue.schedule(JobRequest.of(XSS).withId("later-xss").withDelay(Duration.ofHours(2)));
    await().atMost(Duration.ofSeconds(10)).until(() -> queue.admin().stats().expired() == 1);

    paused = dashboard.newQueue("paused");
    delayq.queue(paused).schedule(JobRequest.of("on hold").withId("held").withDelay(Duration.ofHours(1)));
    delayq.queue(paused).admin().pause();

    working = dashboard.newQueue("working");
    workers = delayq.queue(working).startWorkers(job -> {}, WorkerOptions.defaults());
    for (int i = 0; i < 5; i++) {
      delayq.queue(working).schedule(JobRequest.of("done at once " + i));
    }

    scheduled = dashboard.newQueue("schedules");
    scheduleName = "digest-" + UUID.randomUUID().toString().substring(0, 8);
    delayq.queue(scheduled).schedules().set(Schedule.every(scheduleName, Duration.ofHours(1)));

    use.login(BrowserDashboard.TOKEN, "queues");
  }

  @AfterAll
  static void stop() {
    if (workers != null) {
      workers.close();
    }
    if (dashboard != null) {
      dashboard.close();
    }
  }

  @Test
  void queuesShowsEachStatesCountAndThePausedQueue() {
    use.open("/", "queues");
    WebElement row = use.queueRow(states);
    var stats = delayq.queue(states).admin().stats();
    // the core's counts: "scheduled" is every waiting job, due or not
    assertThat(List.of(stats.scheduled(), stats.due(), stats.active(), stats.expired(), stats.dead()))
        .containsExactly(3L, 1L, 1L, 1L, 1L);
    assertThat(DashboardUse.count(row, "scheduled")).isEqualTo("3");
    assertThat(DashboardUse.count(row, "due")).isEqualTo("1");
    assertThat(DashboardUse.count(row, "active")).isEqualTo("1");
    assertThat(DashboardUse.count(row, "expired")).isEqualTo("1");
    assertThat(DashboardUse.count(row, "dead")).isEqualTo("1");
    assertThat(row.getText()).doesNotContainIgnoringCase("paused");
    browser.screenshot("queues");
    use.open("/", "queues");
    assertThat(use.queueRow(paused).getText()).containsIgnoringCase("paused");
    use.assertClean();
  }

  @Test
  void queueDetailListsScheduledJobsByDueTime() {
    WebElement main = use.open("/queues/" + states + "?state=scheduled", "queue");
    List<String> rows = rowKeys(main, "jobs");
    // scheduled: every waiting job by due time, the due one first
    assertThat(rows).containsExactly("due-1", "later-json", "later-xss");
    browser.screenshot("queue-scheduled");
    use.assertClean();
  }

  @Test
  void queueDetailListsDueJobs() {
    WebElement main = use.open("/queues/" + states + "?state=due", "queue");
    assertThat(rowKeys(main, "jobs")).contains("due-1").doesNotContain("later-json", "active-1", "dead-1");
    browser.screenshot("queue-due");
    use.assertClean();
  }

  @Test
  void queueDetailShowsActiveJobsWithHolderAndLeaseDeadline() {
    WebElement main = use.open("/queues/" + states + "?state=active", "queue");
    JobInfo active = delayq.queue(states).get("active-1").orElseThrow();
    assertThat(active.holder()).as("the core's holder of active-1").isNotBlank();
    WebElement row = use.row("jobs", "active-1");
    assertThat(row.getText()).contains(active.holder());
    assertThat(shows(row, active.leaseUntil())).as("lease deadline " + active.leaseUntil() + " in " + row.getText()).isTrue();
    assertThat(rowKeys(main, "jobs")).doesNotContain("due-1");
    browser.screenshot("queue-active");
    use.assertClean();
  }

  @Test
  void queueDetailShowsDeadJobsWithLastErrorAndAttempts() {
    use.open("/queues/" + states + "?state=dead", "queue");
    WebElement row = use.row("dead", "dead-1");
    assertThat(row.getText()).contains("payment gateway said no: card declined");
    assertThat(delayq.queue(states).get("dead-1").orElseThrow().attempts()).isEqualTo(1);
    assertThat(row.getText()).containsPattern("\\b1\\b");
    browser.screenshot("queue-dead");
    use.assertClean();
  }

  @Test
  void jobPageShowsAJsonPayloadPrettyPrinted() {
    WebElement main = use.open("/queues/" + states + "/jobs/later-json", "job");
    String text = main.getText();
    assertThat(text).contains("later-json").containsPattern("\"order\"\\s*:\\s*42").contains("café");
    assertThat(text).as("pretty-printed: one field a line").containsPattern("\"order\"\\s*:\\s*42\\s*,\\s*\\n");
    browser.screenshot("job-json");
    use.assertClean();
  }

  @Test
  void jobPageShowsMarkupInAPayloadAsText() {
    WebElement main = use.open("/queues/" + states + "/jobs/later-xss", "job");

    assertThat(DashboardUse.dialogOpen(browser.driver())).as("an alert opened").isFalse();
    assertThat(main.getText()).contains("<script>alert(1)</script>").contains("onerror=\"alert(2)\"");
    assertThat(browser.script("""
        return Array.from(document.querySelectorAll('script')).filter(function (s) {
          return s.textContent.indexOf('alert(') >= 0; }).length"""))
        .as("script elements the payload made").isEqualTo(0L);
    assertThat(browser.findAll(By.cssSelector("main img[src='x'], main [onerror]"))).as("elements the payload made").isEmpty();
    browser.screenshot("job-markup-payload");
    use.assertClean();
  }

  @Test
  void findByIdFromTheNavFormOfAnotherPageOpensTheJob() {
    use.open("/redis", "redis");
    WebElement form = browser.waitFor(By.cssSelector("header form[role='search']"));
    form.findElement(By.name("queue")).sendKeys(states);
    form.findElement(By.name("id")).sendKeys("later-json", Keys.ENTER);

    use.main("job");
    assertThat(browser.currentUrl()).isEqualTo(dashboard.url("/queues/" + states + "/jobs/later-json"));
    browser.screenshot("find-found");

    use.open("/", "queues");
    form = browser.waitFor(By.cssSelector("header form[role='search']"));
    String missing = "no-such-job-" + UUID.randomUUID();
    form.findElement(By.name("id")).sendKeys(missing, Keys.ENTER);
    WebElement notFound = use.main("find");
    // not found, saying which queues were searched
    assertThat(notFound.getText()).contains(missing).containsIgnoringCase("searched").contains(states);
    assertThat(browser.findAll(By.cssSelector("main [data-table]"))).as("no job shown").isEmpty();
    browser.screenshot("find-not-found");
    browser.assertNoExternalRequests();
    // the not-found page is answered 404, which the console reports for the page itself; nothing else may be there
    assertThat(browser.consoleErrors()).as("console errors").allMatch(e -> e.startsWith(dashboard.url("/find?")) && e.contains("404"));
  }

  @Test
  void schedulesShowTheNextFiveOccurrences() {
    ScheduleInfo info = delayq.queue(scheduled).schedules().get(scheduleName).orElseThrow();
    List<Instant> next = info.upcoming(5);
    assertThat(next).hasSize(5);

    use.open("/schedules", "schedules");
    WebElement row = scheduleRow(scheduleName);
    String text = row.getText();
    List<String> datetimes = row.findElements(By.cssSelector("time[datetime]")).stream()
        .map(t -> t.getAttribute("datetime")).toList();
    for (Instant at : next) {
      String iso = at.toString();
      assertThat(datetimes.contains(iso) || text.contains(second(at)))
          .as("occurrence " + iso + " shown in " + text + " / " + datetimes).isTrue();
    }
    browser.screenshot("schedules");

    use.open("/queues/" + scheduled + "/schedules", "schedules");
    scheduleRow(scheduleName);
    use.assertClean();
  }

  @Test
  void workersShowThisProcessWorkingItsQueue() {
    String process = delayq.processId();
    await().atMost(Duration.ofSeconds(10))
        .until(() -> delayq.workerProcesses().stream().anyMatch(p -> p.id().equals(process)));
    use.open("/workers", "workers");
    WebElement row = use.row("workers", process);
    assertThat(row.getText()).contains(working);
    browser.screenshot("workers");
    use.assertClean();
  }

  @Test
  void historyDrawsItsCharts() {
    await().atMost(Duration.ofSeconds(10)).until(() -> {
      var stats = delayq.queue(working).admin().stats();
      return stats.scheduled() + stats.due() + stats.active() == 0;
    });
    use.open("/history", "history");
    browser.waitFor(By.cssSelector("main .uplot canvas"));
    assertThat(browser.findAll(By.cssSelector("main .uplot canvas"))).isNotEmpty();
    browser.screenshot("history");

    use.open("/queues/" + working + "/history", "history");
    browser.waitFor(By.cssSelector("main .uplot canvas"));
    browser.screenshot("history-queue");
    for (String range : List.of("1h", "24h", "7d")) {
      use.open("/history?range=" + range, "history");
      browser.waitFor(By.cssSelector("main .uplot canvas"));
    }
    use.assertClean();
  }

  @Test
  void redisShowsItsNodes() {
    use.open("/redis", "redis");
    browser.waitFor(By.cssSelector("[data-table='redis'] [data-row]"));
    assertThat(browser.findAll(By.cssSelector("[data-table='redis'] [data-row]")))
        .hasSize(delayq.redisNodes().size());
    browser.screenshot("redis");
    use.assertClean();
  }

  private static WebElement scheduleRow(String name) {
    List<WebElement> rows = browser.waitUntil(d -> {
      List<WebElement> found = d.findElements(DashboardUse.rowOf("schedules", name));
      return found.isEmpty() ? null : found;
    });
    return rows.get(0);
  }

  private static List<String> rowKeys(WebElement main, String table) {
    return main.findElements(By.cssSelector("[data-table='" + table + "'] [data-row]")).stream()
        .map(r -> r.getAttribute("data-row")).toList();
  }

  /** Whether {@code element} shows {@code at}: as a {@code <time datetime>} of that second, or as its UTC minute in its text. */
  private static boolean shows(WebElement element, Instant at) {
    String second = at.truncatedTo(ChronoUnit.SECONDS).toString();
    boolean time = element.findElements(By.cssSelector("time[datetime]")).stream()
        .map(t -> t.getAttribute("datetime"))
        .anyMatch(d -> d.equals(at.toString()) || d.startsWith(second.substring(0, second.length() - 1)));
    return time || element.getText().contains(minute(at));
  }

  private static String minute(Instant at) {
    return DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm").withZone(ZoneOffset.UTC).format(at);
  }

  private static String second(Instant at) {
    return DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss").withZone(ZoneOffset.UTC).format(at);
  }
}
