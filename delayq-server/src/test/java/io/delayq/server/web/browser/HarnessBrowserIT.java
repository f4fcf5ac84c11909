package io.delayq.server.web.browser;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delayq.server.web.browser.BrowserSession.Request;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;

/**
 * The harness itself, on pages of a test site: it sees a request leave for another host, a CSP
 * violation on the console, and saves screenshots; the browser and driver are the installed ones.
 */
class HarnessBrowserIT {
  @RegisterExtension static final BrowserSession browser = new BrowserSession();
  private static TestSite site;

  @BeforeAll
  static void serve() {
    site = TestSite.start()
        .page("/local.css", "text/css", "h1 { color: #235; }")
        .page("/local.js", "text/javascript", "document.getElementById('status').textContent = 'script ran';")
        .page("/clean.html", "text/html; charset=utf-8", """
            <!doctype html><html><head><link rel="icon" href="data:,"><title>clean</title><link rel="stylesheet" href="/local.css">
            <script src="/local.js" defer></script></head>
            <body><h1>only local things</h1><p id="status">waiting</p></body></html>""")
        .page("/leaky.html", "text/html; charset=utf-8", """
            <!doctype html><html><head><link rel="icon" href="data:,"><title>leaky</title><link rel="stylesheet" href="/local.css">
            <script src="https://cdn.example.com/lib.js"></script></head>
            <body><h1>one local, one external</h1></body></html>""")
        .page("/csp.html", "text/html; charset=utf-8", """
            <!doctype html><html><head><link rel="icon" href="data:,"><title>csp</title></head>
            <body><p id="status">not run</p>
            <script>document.getElementById('status').textContent = 'inline ran';</script></body></html>""",
            Map.of("Content-Security-Policy", "default-src 'self'; script-src 'self'"));
  }

  @AfterAll
  static void stop() {
    if (site != null) {
      site.close();
    }
  }

  @Test
  void theInstalledDriverIsUsedAndSeleniumManagerNeverRuns() {
    assertThat(browser.driverLookupLog())
        .as("Selenium's driver lookup log")
        .anyMatch(line -> line.contains("Skipping Selenium Manager") && line.contains("specified in Service class"))
        .noneMatch(line -> line.startsWith("org.openqa.selenium.manager.SeleniumManager"));
    assertThat(((String) browser.script("return navigator.userAgent"))).contains("Chrome/");
    assertThat(browser.script("return [window.innerWidth, window.outerWidth]").toString()).contains("1400");
  }

  @Test
  void aPageWithOnlyLocalResourcesPassesAndIsRecorded() {
    browser.open(site.url("/clean.html"));
    browser.waitUntil(d -> d.findElement(By.id("status")).getText().equals("script ran"));

    assertThat(browser.requests()).extracting(Request::url)
        .contains(site.url("/clean.html"), site.url("/local.css"), site.url("/local.js"));
    browser.assertNoExternalRequests();
    browser.assertNoConsoleErrors();
    Path shot = browser.screenshot("harness-clean");
    assertThat(shot).exists().hasParent(Path.of(System.getProperty("basedir", "."), "target", "screenshots"));
  }

  @Test
  void aRequestToAnotherHostIsReportedWithItsUrl() throws Exception {
    browser.open(site.url("/leaky.html"));
    browser.waitFor(By.tagName("h1"));

    assertThat(browser.requests()).extracting(Request::url).contains(site.url("/local.css"));
    assertThat(browser.externalRequests()).extracting(Request::url).containsExactly("https://cdn.example.com/lib.js");
    assertThatThrownBy(browser::assertNoExternalRequests)
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("https://cdn.example.com/lib.js")
        .hasMessageNotContaining("/local.css");
    // the host resolver refused it, so the page did not wait for it
    assertThat(browser.consoleErrors()).anyMatch(error -> error.contains("cdn.example.com"));
    Path shot = browser.screenshot("harness-external-request");
    byte[] png = Files.readAllBytes(shot);
    assertThat(png).startsWith(0x89, 'P', 'N', 'G');
  }

  @Test
  void aContentSecurityPolicyViolationIsAConsoleError() {
    browser.open(site.url("/csp.html"));
    browser.waitFor(By.id("status"));

    assertThat(browser.driver().findElement(By.id("status")).getText()).isEqualTo("not run");
    assertThatThrownBy(browser::assertNoConsoleErrors)
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("Content Security Policy");
    browser.assertNoExternalRequests();
  }

  @Test
  void aResetForgetsWhatWasRecorded() {
    browser.open(site.url("/leaky.html"));
    browser.waitFor(By.tagName("h1"));
    assertThat(browser.externalRequests()).isNotEmpty();

    browser.resetRecording();

    assertThat(browser.requests()).isEmpty();
    assertThat(browser.consoleErrors()).isEmpty();
  }
}
