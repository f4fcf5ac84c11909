package io.delayq.server.web.browser;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.openqa.selenium.Alert;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.NoAlertPresentException;
import org.openqa.selenium.NoSuchElementException;
import org.openqa.selenium.SearchContext;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.UnhandledAlertException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Using the dashboard in a browser the way a person does, through its data-* test hooks only (docs/DASHBOARD.md):
 * {@code data-page}, {@code data-table}, {@code data-row}, {@code data-action}, {@code data-flash},
 * {@code data-count}, and the form field names.
 */
final class DashboardUse {
  private final BrowserSession browser;
  private final String root;

  DashboardUse(BrowserSession browser, BrowserDashboard dashboard) {
    this(browser, dashboard.url(""));
  }

  /** Use of the dashboard at {@code root} (its URL with the prefix, no trailing '/'), such as through a proxy. */
  DashboardUse(BrowserSession browser, String root) {
    this.browser = browser;
    this.root = root;
  }

  /** {@code path} (starting with '/') under this dashboard's root. */
  String url(String path) {
    return root + path;
  }

  /** Opens {@code path} (under the prefix) and waits for its {@code <main data-page=page>}. */
  WebElement open(String path, String page) {
    browser.open(url(path));
    return main(page);
  }

  /** Waits for the page shown to be {@code page} and returns its {@code <main>}. */
  WebElement main(String page) {
    try {
      return browser.waitFor(By.cssSelector("main[data-page='" + page + "']"));
    } catch (org.openqa.selenium.TimeoutException e) {
      throw new AssertionError("expected the " + page + " page (main[data-page=" + page + "]) at "
          + browser.currentUrl() + ", found data-page=" + shownPage() + ":\n" + bodyText(), e);
    }
  }

  String shownPage() {
    List<WebElement> mains = browser.findAll(By.cssSelector("main[data-page]"));
    return mains.isEmpty() ? "(none)" : mains.get(0).getAttribute("data-page");
  }

  String bodyText() {
    List<WebElement> body = browser.findAll(By.tagName("body"));
    return body.isEmpty() ? "" : body.get(0).getText();
  }

  /** Logs in on the login form with {@code token} and waits to leave it for {@code landing}. */
  void login(String token, String landing) {
    browser.open(url("/login"));
    typeToken(token);
    main(landing);
  }

  /** Types {@code token} into the login form shown now and sends it. */
  void typeToken(String token) {
    WebElement field = main("login").findElement(By.name("token"));
    field.clear();
    field.sendKeys(token, Keys.ENTER);
  }

  /** The row {@code key} of the table {@code table} on the page shown now (waiting for it). */
  WebElement row(String table, String key) {
    return browser.waitFor(rowOf(table, key));
  }

  /** The queue's row on the Queues page shown now, following its pages until it is there. */
  WebElement queueRow(String queue) {
    for (int page = 0; page < 100; page++) {
      List<WebElement> rows = browser.findAll(rowOf("queues", queue));
      if (!rows.isEmpty()) {
        return rows.get(0);
      }
      List<WebElement> next = browser.findAll(By.cssSelector("main a[rel='next']"));
      assertThat(next).as("queue " + queue + " on the Queues pages").isNotEmpty();
      WebElement shown = browser.findAll(By.tagName("main")).get(0);
      next.get(0).click();
      browser.waitUntil(ExpectedConditions.stalenessOf(shown));
      main("queues");
    }
    throw new AssertionError("queue " + queue + " not within 100 pages of the Queues page");
  }

  static By rowOf(String table, String key) {
    return By.cssSelector("[data-table='" + table + "'] [data-row='" + cssString(key) + "']");
  }

  /** The text of the {@code data-count=kind} cell of {@code row}. */
  static String count(WebElement row, String kind) {
    return row.findElement(By.cssSelector("[data-count='" + kind + "']")).getText().trim();
  }

  /** The {@code data-action} buttons (and links) of the page shown now, by action name. */
  List<String> actionsShown() {
    return browser.findAll(By.cssSelector("[data-action]")).stream()
        .filter(WebElement::isDisplayed)
        .map(e -> e.getAttribute("data-action"))
        .toList();
  }

  /**
   * Clicks the {@code data-action=action} button inside {@code scope}, accepts the confirmation
   * the page asks for (if it asks), and waits for the result message ({@code data-flash}).
   *
   * @return the flash element: {@code data-flash} is {@code ok} or {@code error}
   */
  WebElement act(SearchContext scope, String action) {
    clearFlash();
    WebElement button = actionButton(scope, action);
    try {
      button.click();
    } catch (UnhandledAlertException e) {
      // the click opened a confirmation: accepted below
    }
    return awaitFlash();
  }

  /** The {@code data-action=action} element inside {@code scope}, which must be there. */
  static WebElement actionButton(SearchContext scope, String action) {
    try {
      return scope.findElement(By.cssSelector("[data-action='" + action + "']"));
    } catch (NoSuchElementException e) {
      throw new AssertionError("no [data-action=" + action + "] where it should be", e);
    }
  }

  /** Empties the flash area, so that the next message is the next action's. */
  void clearFlash() {
    browser.script("document.querySelectorAll('[data-flash]').forEach(function (e) { e.remove(); })");
  }

  /** Accepts any confirmation dialog and waits for a result message. */
  WebElement awaitFlash() {
    return new WebDriverWait(browser.driver(), Duration.ofSeconds(10))
        .ignoring(StaleElementReferenceException.class)
        .until(driver -> {
          acceptDialog(driver);
          try {
            List<WebElement> flashes = driver.findElements(By.cssSelector("[data-flash]"));
            return flashes.isEmpty() ? null : flashes.get(0);
          } catch (UnhandledAlertException e) {
            return null;
          }
        });
  }

  /** Waits for a result message and checks it says the action succeeded; returns its text. */
  String awaitOk(WebElement flash) {
    assertThat(flash.getAttribute("data-flash")).as("result message: " + flash.getText()).isEqualTo("ok");
    return flash.getText();
  }

  static void acceptDialog(WebDriver driver) {
    try {
      Alert alert = driver.switchTo().alert();
      alert.accept();
    } catch (NoAlertPresentException ignored) {
      // no dialog: the action did not ask for a confirmation
    }
  }

  /** Whether a dialog (alert, confirm, prompt) is open now. */
  static boolean dialogOpen(WebDriver driver) {
    try {
      driver.switchTo().alert();
      return true;
    } catch (NoAlertPresentException e) {
      return false;
    }
  }

  /**
   * Sends a POST from the page shown now with its own JavaScript, as a page's script could:
   * same origin, its cookies, the dashboard's request header; returns the status.
   */
  long postFromPage(String path, Map<String, String> form) {
    StringBuilder body = new StringBuilder();
    form.forEach((k, v) -> body.append(body.length() == 0 ? "" : "&")
        .append(java.net.URLEncoder.encode(k, java.nio.charset.StandardCharsets.UTF_8)).append('=')
        .append(java.net.URLEncoder.encode(v, java.nio.charset.StandardCharsets.UTF_8)));
    Object status = browser.asyncScript("""
        var done = arguments[arguments.length - 1];
        fetch(arguments[0], {method: 'POST', credentials: 'same-origin',
            headers: {'X-Delayq-Request': 'dashboard', 'Content-Type': 'application/x-www-form-urlencoded'},
            body: arguments[1]})
          .then(function (r) { done(r.status); }, function (e) { done('failed: ' + e); });""",
        url(path), body.toString());
    assertThat(status).as("the POST from the page").isInstanceOf(Long.class);
    return (Long) status;
  }

  /** {@code value} for a CSS string in single quotes. */
  static String cssString(String value) {
    return value.replace("\\", "\\\\").replace("'", "\\'");
  }

  /** Fails with the page if it shows any request that left for another host or any console error. */
  void assertClean() {
    browser.assertNoExternalRequests();
    browser.assertNoConsoleErrors();
  }
}
