package io.delayq.server.web.browser;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.Cookie;
import org.openqa.selenium.WebElement;

/** Logging in to a server with a token, in a browser: the form, a wrong token, the session cookie, logging out. */
class LoginBrowserIT {
  @RegisterExtension static final BrowserSession browser = new BrowserSession();
  private static BrowserDashboard dashboard;
  private static DashboardUse use;

  @BeforeAll
  static void start() {
    dashboard = BrowserDashboard.start();
    use = new DashboardUse(browser, dashboard);
  }

  @AfterAll
  static void stop() {
    if (dashboard != null) {
      dashboard.close();
    }
  }

  @BeforeEach
  void freshSession() {
    browser.clearCookies();
  }

  @Test
  void aPageWithoutASessionLeadsToTheLoginForm() {
    use.open("/", "login");

    assertThat(browser.currentUrl()).startsWith(dashboard.url("/login"));
    assertThat(browser.findAll(By.cssSelector("main[data-page='login'] input[name='token']"))).hasSize(1);
    assertThat(browser.findAll(By.cssSelector("[data-table]"))).as("no data before logging in").isEmpty();
    browser.screenshot("login");
    use.assertClean();
  }

  @Test
  void aWrongTokenIsRefusedWithAMessageAndNoSession() {
    use.open("/login", "login");
    use.typeToken("not-the-token");

    WebElement flash = use.awaitFlash();
    assertThat(flash.getAttribute("data-flash")).isEqualTo("error");
    assertThat(flash.getText()).isNotBlank();
    assertThat(use.shownPage()).isEqualTo("login");
    assertThat(browser.driver().manage().getCookieNamed("delayq_session")).isNull();
    browser.screenshot("login-wrong-token");
    // the 401 of the refused login is the browser's "failed to load resource"; nothing else may be
    assertThat(browser.consoleErrors()).allMatch(e -> e.contains("/login") && e.contains("401"), "the login's 401");
    browser.assertNoExternalRequests();
  }

  @Test
  void theRightTokenLeadsToTheQueuesPageWithAnHttpOnlyStrictCookie() {
    use.login(BrowserDashboard.TOKEN, "queues");

    assertThat(browser.currentUrl()).isEqualTo(dashboard.url("/"));
    Cookie session = browser.driver().manage().getCookieNamed("delayq_session");
    assertThat(session).as("the session cookie").isNotNull();
    assertThat(session.isHttpOnly()).as("HttpOnly").isTrue();
    assertThat(session.getSameSite()).isEqualTo("Strict");
    assertThat(session.getPath()).isEqualTo("/");
    assertThat(session.isSecure()).as("Secure on plain http").isFalse();
    assertThat((String) browser.script("return document.cookie")).doesNotContain("delayq_session");
    assertThat(browser.findAll(By.cssSelector("[data-role='full']"))).hasSize(1);
    use.assertClean();
  }

  @Test
  void logoutEndsTheSessionInTheBrowser() {
    use.login(BrowserDashboard.TOKEN, "queues");

    DashboardUse.actionButton(browser.driver(), "logout").click();
    use.main("login");
    assertThat(browser.driver().manage().getCookieNamed("delayq_session")).isNull();
    use.open("/", "login");
    List<WebElement> nav = browser.findAll(By.cssSelector("header nav a"));
    assertThat(nav).as("no nav without a session").isEmpty();
    use.assertClean();
  }

  @Test
  void afterLoginTheNextPageAskedForIsShown() {
    use.open("/workers", "login");
    assertThat(URLDecoder.decode(browser.currentUrl(), StandardCharsets.UTF_8))
        .isEqualTo(dashboard.url("/login?next=/workers"));
    use.typeToken(BrowserDashboard.TOKEN);

    use.main("workers");
    assertThat(browser.currentUrl()).isEqualTo(dashboard.url("/workers"));
    use.assertClean();
  }
}
