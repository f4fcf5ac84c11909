package io.delayq.server.web.browser;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayq.JobQueue;
import io.delayq.JobRequest;
import io.delayq.server.web.browser.BrowserSession.Request;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebElement;

/**
 * The dashboard under a path prefix, used in a browser from the login to an action: served with
 * {@code --base-path /delayq}, and behind a proxy that strips {@code /ops/delayq} and says so in
 * {@code X-Forwarded-Prefix}. Every request the pages make must stay under the prefix.
 */
class PathPrefixBrowserIT {
  @RegisterExtension static final BrowserSession browser = new BrowserSession();
  private static BrowserDashboard based;
  private static BrowserDashboard proxied;
  private static PrefixProxy proxy;

  @BeforeAll
  static void start() {
    based = BrowserDashboard.start("/delayq");
    proxied = BrowserDashboard.start();
    proxy = PrefixProxy.start("/ops/delayq", proxied.port());
  }

  @AfterAll
  static void stop() {
    if (proxy != null) {
      proxy.close();
    }
    for (BrowserDashboard dashboard : new BrowserDashboard[] {based, proxied}) {
      if (dashboard != null) {
        dashboard.close();
      }
    }
  }

  @BeforeEach
  void freshSession() {
    browser.clearCookies();
  }

  @Test
  void underItsBasePath() {
    walk(based, based.url(""), "prefix-base-path");
  }

  @Test
  void behindAProxyThatStripsThePrefix() {
    walk(proxied, proxy.origin() + "/ops/delayq", "prefix-proxy");
  }

  /** Logs in at {@code root}, follows every nav link, finds a job, pauses a queue; nothing leaves {@code root}. */
  private static void walk(BrowserDashboard dashboard, String root, String screenshot) {
    DashboardUse use = new DashboardUse(browser, root);
    String name = dashboard.newQueue("prefix");
    JobQueue queue = dashboard.delayq().queue(name);
    queue.schedule(JobRequest.of("x").withId("p-1").withDelay(Duration.ofHours(1)));

    use.open("/", "login");
    assertThat(browser.currentUrl()).startsWith(root + "/login");
    use.typeToken(BrowserDashboard.TOKEN);
    use.main("queues");
    assertThat(browser.currentUrl()).isEqualTo(root + "/");

    Map<String, String> nav = new LinkedHashMap<>();
    nav.put("Schedules", "schedules");
    nav.put("Workers", "workers");
    nav.put("History", "history");
    nav.put("Redis", "redis");
    nav.put("Queues", "queues");
    for (Map.Entry<String, String> link : nav.entrySet()) {
      WebElement shown = browser.findAll(By.tagName("main")).get(0);
      browser.waitFor(By.cssSelector("header nav")).findElement(By.linkText(link.getKey())).click();
      browser.waitUntil(org.openqa.selenium.support.ui.ExpectedConditions.stalenessOf(shown));
      use.main(link.getValue());
    }

    WebElement find = browser.waitFor(By.cssSelector("header form[role='search']"));
    find.findElement(By.name("queue")).sendKeys(name);
    find.findElement(By.name("id")).sendKeys("p-1", Keys.ENTER);
    use.main("job");
    assertThat(browser.currentUrl()).isEqualTo(root + "/queues/" + name + "/jobs/p-1");

    use.open("/", "queues");
    use.awaitOk(use.act(use.queueRow(name), "pause"));
    assertThat(queue.admin().stats().paused()).as("paused through " + root).isTrue();
    browser.screenshot(screenshot);

    List<Request> outside = browser.requests().stream()
        .filter(r -> r.url().matches("(?i)(https?|wss?):.*") && !r.url().startsWith(root + "/"))
        .toList();
    assertThat(outside).as("requests outside " + root + "/").isEmpty();
    browser.assertNoExternalRequests();
    browser.assertNoConsoleErrors();
  }
}
