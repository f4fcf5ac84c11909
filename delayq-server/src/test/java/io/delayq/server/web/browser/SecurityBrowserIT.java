package io.delayq.server.web.browser;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayq.Delayq;
import io.delayq.JobQueue;
import io.delayq.JobRequest;
import io.delayq.Schedule;
import io.delayq.server.web.browser.BrowserSession.Request;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What a browser may not do: act with a read-only session (even by a POST its page's own script
 * sends), act from another site while logged in (a form that submits itself, a no-cors fetch), or
 * act or look without a session. Each time the core state says nothing changed.
 */
class SecurityBrowserIT {
  @RegisterExtension static final BrowserSession browser = new BrowserSession();
  private static BrowserDashboard dashboard;
  private static DashboardUse use;
  private static Delayq delayq;
  private static TestSite otherSite;
  private static String queue;
  private static String schedule;

  @BeforeAll
  static void start() {
    dashboard = BrowserDashboard.start();
    use = new DashboardUse(browser, dashboard);
    delayq = dashboard.delayq();
    queue = dashboard.newQueue("guarded");
    JobQueue q = delayq.queue(queue);
    q.schedule(JobRequest.of("x").withId("s-1").withDelay(Duration.ofHours(1)));
    ActionsBrowserIT.bury(q, "d-1", "boom");
    schedule = "guarded-tick";
    q.schedules().set(Schedule.every(schedule, Duration.ofHours(1)));

    String pause = dashboard.url("/queues/" + queue + "/pause");
    otherSite = TestSite.start()
        .page("/form.html", "text/html; charset=utf-8", """
            <!doctype html><html><head><link rel="icon" href="data:,"><title>another site</title></head>
            <body><form id="f" method="post" action="%s"><input type="hidden" name="x" value="1"></form>
            <script>document.getElementById('f').submit();</script></body></html>""".formatted(pause))
        .page("/fetch.html", "text/html; charset=utf-8", """
            <!doctype html><html><head><link rel="icon" href="data:,"><title>another site</title></head>
            <body><script>
            fetch('%s', {method: 'POST', mode: 'no-cors', credentials: 'include',
                headers: {'Content-Type': 'application/x-www-form-urlencoded'}, body: 'x=1'})
              .then(function () { document.title = 'sent'; }, function () { document.title = 'failed'; });
            </script></body></html>""".formatted(pause));
  }

  @AfterAll
  static void stop() {
    if (otherSite != null) {
      otherSite.close();
    }
    if (dashboard != null) {
      dashboard.close();
    }
  }

  @BeforeEach
  void freshSession() {
    browser.clearCookies();
  }

  @Test
  void aReadOnlySessionSeesEveryPageWithoutActions() {
    use.login(BrowserDashboard.READ_ONLY_TOKEN, "queues");
    assertThat(browser.findAll(org.openqa.selenium.By.cssSelector("[data-role='read-only']"))).hasSize(1);

    Map<String, String> pages = new java.util.LinkedHashMap<>();
    pages.put("/", "queues");
    pages.put("/queues/" + queue + "?state=scheduled", "queue");
    pages.put("/queues/" + queue + "?state=dead", "queue");
    pages.put("/queues/" + queue + "/jobs/s-1", "job");
    pages.put("/schedules", "schedules");
    pages.put("/queues/" + queue + "/schedules", "schedules");
    pages.put("/workers", "workers");
    pages.put("/history", "history");
    pages.put("/redis", "redis");
    for (Map.Entry<String, String> page : pages.entrySet()) {
      use.open(page.getKey(), page.getValue());
      assertThat(use.actionsShown()).as("actions on " + page.getKey() + " for a read-only session").containsOnly("logout");
    }
    use.open("/queues/" + queue + "?state=scheduled", "queue");
    browser.screenshot("read-only-queue");
    use.assertClean();
  }

  @Test
  void aReadOnlySessionsOwnPostIsRefused() {
    use.login(BrowserDashboard.READ_ONLY_TOKEN, "queues");
    use.open("/queues/" + queue, "queue");

    assertThat(use.postFromPage("/queues/" + queue + "/pause", Map.of())).isEqualTo(403);
    assertThat(use.postFromPage("/queues/" + queue + "/jobs/s-1/cancel", Map.of())).isEqualTo(403);
    assertThat(use.postFromPage("/queues/" + queue + "/dead/d-1/delete", Map.of())).isEqualTo(403);
    assertThat(use.postFromPage("/queues/" + queue + "/schedules/" + schedule + "/pause", Map.of())).isEqualTo(403);

    assertUnchanged();
    assertThat(browser.consoleErrors()).as("only the refused POSTs").allMatch(e -> e.contains("403"));
    browser.assertNoExternalRequests();
  }

  @Test
  void aFormOfAnotherSiteThatSubmitsItselfDoesNotPause() {
    use.login(BrowserDashboard.TOKEN, "queues");

    browser.open(otherSite.url("/form.html"));
    browser.waitUntil(d -> d.getCurrentUrl().startsWith(dashboard.url("/queues/")));

    assertThat(browser.requests()).as("the form's POST went out")
        .anyMatch(r -> r.method().equals("POST") && r.url().equals(dashboard.url("/queues/" + queue + "/pause")));
    assertUnchanged();
    browser.screenshot("cross-site-form-refused");
    assertThat(browser.consoleErrors()).as("only the refused POST").allMatch(e -> e.contains("403"));
    browser.assertNoExternalRequests();
  }

  @Test
  void aNoCorsFetchOfAnotherSiteDoesNotPause() {
    use.login(BrowserDashboard.TOKEN, "queues");

    browser.open(otherSite.url("/fetch.html"));
    browser.waitUntil(d -> d.getTitle().equals("sent") || d.getTitle().equals("failed"));

    assertThat(browser.requests()).as("the fetch's POST went out")
        .anyMatch(r -> r.method().equals("POST") && r.url().equals(dashboard.url("/queues/" + queue + "/pause")));
    assertUnchanged();
    assertThat(browser.consoleErrors()).as("only the refused POST").allMatch(e -> e.contains("403"));
    browser.assertNoExternalRequests();
  }

  @Test
  void withoutASessionAPostIsRefusedAndAPageLeadsToTheLogin() {
    use.open("/queues/" + queue, "login");
    assertThat(java.net.URLDecoder.decode(browser.currentUrl(), java.nio.charset.StandardCharsets.UTF_8))
        .isEqualTo(dashboard.url("/login?next=/queues/" + queue));

    assertThat(use.postFromPage("/queues/" + queue + "/pause", Map.of())).isEqualTo(401);
    assertThat(use.postFromPage("/queues/" + queue + "/dead/d-1/delete", Map.of())).isEqualTo(401);
    assertUnchanged();
    List<Request> posts = browser.requests().stream().filter(r -> r.method().equals("POST")).toList();
    assertThat(posts).hasSize(2);
    assertThat(browser.consoleErrors()).as("only the refused POSTs").allMatch(e -> e.contains("401"));
    browser.assertNoExternalRequests();
  }

  private static void assertUnchanged() {
    JobQueue q = delayq.queue(queue);
    var stats = q.admin().stats();
    assertThat(stats.paused()).as("queue paused").isFalse();
    assertThat(q.get("s-1")).as("s-1").isPresent();
    assertThat(stats.dead()).as("dead jobs").isEqualTo(1);
    assertThat(q.schedules().get(schedule).orElseThrow().schedule().paused()).as("schedule paused").isFalse();
  }
}
