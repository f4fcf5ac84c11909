package io.delayq.server.web.browser;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.UnexpectedAlertBehaviour;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * One headless Debian Chromium per test class, driven through Debian's chromedriver, that records
 * every request its pages make and every console error they log.
 *
 * <pre>{@code
 * @RegisterExtension static final BrowserSession browser = new BrowserSession();
 * }</pre>
 *
 * <p>Nothing is downloaded: the driver and the browser are the installed {@code /usr/bin} ones,
 * named explicitly so that Selenium Manager (which would fetch a driver) never runs. Without them
 * a test class is skipped with the reason, and fails under {@code CI=true}: CI must not pass
 * browser tests it did not run. Any host but loopback resolves to nothing, so a page that reaches
 * for a CDN fails fast here instead of hanging, and {@link #assertNoExternalRequests()} names it.
 *
 * <p>Recording starts afresh before each test. Cookies are kept across a class's tests; {@link
 * #clearCookies()} starts a fresh session where a test needs one.
 */
public final class BrowserSession implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback {
  static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
  static final String MISSING =
      "headless browser tests need Debian's chromium and chromedriver at " + CHROMIUM + " and " + CHROMEDRIVER
          + "; install them with `apt-get install chromium chromium-driver`";
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final List<Request> requests = new ArrayList<>();
  private final List<String> consoleErrors = new ArrayList<>();
  private final List<String> seleniumManagerLog = new ArrayList<>();
  private ChromeDriver driver;
  private ChromeDriverService service;
  private Path profile;

  /** A request the page made, as the browser's network log saw it leave. */
  public record Request(String method, String url, String type) {
    /** Whether it went anywhere but this machine's loopback interface. */
    public boolean external() {
      if (!url.startsWith("http:") && !url.startsWith("https:") && !url.startsWith("ws:") && !url.startsWith("wss:")) {
        return false; // data:, blob:, about: and the like stay inside the browser
      }
      String host = URI.create(url).getHost();
      return host == null || !isLoopback(host);
    }

    private static boolean isLoopback(String host) {
      return host.equals("localhost") || host.equals("[::1]") || host.equals("::1") || host.matches("127(\\.\\d{1,3}){3}");
    }

    @Override
    public String toString() {
      return method + " " + url + " (" + type + ")";
    }
  }

  @Override
  public void beforeAll(ExtensionContext context) throws IOException {
    String missing = missingTool();
    if (missing != null) {
      if ("true".equals(System.getenv("CI"))) {
        Assertions.fail(missing + " (CI=true: browser tests may not be skipped)");
      }
      Assumptions.assumeTrue(false, missing);
    }
    profile = Files.createTempDirectory("delayq-chromium-");
    Path logs = Files.createDirectories(targetDir().resolve("chromedriver"));
    service =
        new ChromeDriverService.Builder()
            // why: a service with its executable set never asks Selenium Manager, which would go online for one
            .usingDriverExecutable(CHROMEDRIVER.toFile())
            .usingAnyFreePort()
            .withLogFile(logs.resolve(context.getRequiredTestClass().getSimpleName() + ".log").toFile())
            .build();
    Handler watch = watchSeleniumManager();
    try {
      driver = new ChromeDriver(service, options(profile));
    } finally {
      for (String name : SELENIUM_MANAGER_LOGGERS) {
        Logger.getLogger(name).removeHandler(watch);
      }
    }
    driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
    driver.manage().timeouts().scriptTimeout(WAIT);
  }

  static ChromeOptions options(Path profile) {
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments(
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-default-apps",
        "--no-proxy-server",
        // why: a page that reaches for another host fails at once (and is named by the test) instead of waiting on DNS
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1",
        "--window-size=1400,1000",
        "--user-data-dir=" + profile);
    LoggingPreferences logging = new LoggingPreferences();
    logging.enable(LogType.PERFORMANCE, Level.ALL);
    logging.enable(LogType.BROWSER, Level.ALL);
    options.setCapability(ChromeOptions.LOGGING_PREFS, logging);
    // why: an alert a page was tricked into opening must stay open for the test to see, not be dismissed
    options.setUnhandledPromptBehaviour(UnexpectedAlertBehaviour.IGNORE);
    return options;
  }

  private static String missingTool() {
    if (!Files.isExecutable(CHROMIUM)) {
      return MISSING + " (" + CHROMIUM + " is missing)";
    }
    if (!Files.isExecutable(CHROMEDRIVER)) {
      return MISSING + " (" + CHROMEDRIVER + " is missing)";
    }
    return null;
  }

  private static final List<String> SELENIUM_MANAGER_LOGGERS =
      List.of("org.openqa.selenium.manager.SeleniumManager", "org.openqa.selenium.remote.service.DriverFinder");

  /** Records what Selenium's driver lookup says while the driver starts, to prove Selenium Manager stayed idle. */
  private Handler watchSeleniumManager() {
    Handler handler = new Handler() {
      @Override
      public void publish(LogRecord record) {
        synchronized (seleniumManagerLog) {
          seleniumManagerLog.add(record.getLoggerName() + ": " + record.getMessage());
        }
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    };
    handler.setLevel(Level.ALL);
    for (String name : SELENIUM_MANAGER_LOGGERS) {
      Logger logger = Logger.getLogger(name);
      logger.setLevel(Level.ALL);
      logger.addHandler(handler);
    }
    return handler;
  }

  /** What Selenium's driver lookup logged while this session's driver started. */
  List<String> driverLookupLog() {
    synchronized (seleniumManagerLog) {
      return List.copyOf(seleniumManagerLog);
    }
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    resetRecording();
  }

  @Override
  public void afterAll(ExtensionContext context) throws IOException {
    try {
      if (driver != null) {
        driver.quit();
      }
    } finally {
      driver = null;
      if (service != null) {
        service.stop();
      }
      if (profile != null) {
        try (Stream<Path> files = Files.walk(profile)) {
          files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
      }
    }
  }

  /** The driver, for anything the helpers here do not cover. */
  public WebDriver driver() {
    return requireDriver();
  }

  private ChromeDriver requireDriver() {
    if (driver == null) {
      throw new IllegalStateException("register BrowserSession as a static @RegisterExtension field");
    }
    return driver;
  }

  /** Loads {@code url} and waits for the page to finish loading. */
  public void open(String url) {
    driver().get(url);
  }

  /** The address of the page shown now. */
  public String currentUrl() {
    return driver().getCurrentUrl();
  }

  /** Waits until an element matches {@code by} and is shown, and returns it. */
  public WebElement waitFor(By by) {
    return new WebDriverWait(driver(), WAIT).until(ExpectedConditions.visibilityOfElementLocated(by));
  }

  /** Waits until {@code condition} returns something other than null or false, and returns it. */
  public <T> T waitUntil(Function<WebDriver, T> condition) {
    return new WebDriverWait(driver(), WAIT).until(condition);
  }

  /** The elements matching {@code by} now, without waiting. */
  public List<WebElement> findAll(By by) {
    return driver().findElements(by);
  }

  /** Runs {@code script} in the page (through the driver, so the page's CSP does not apply) and returns its value. */
  public Object script(String script, Object... args) {
    return ((JavascriptExecutor) driver()).executeScript(script, args);
  }

  /** Runs an async {@code script}, which ends by calling {@code arguments[arguments.length - 1]} with its value. */
  public Object asyncScript(String script, Object... args) {
    return ((JavascriptExecutor) driver()).executeAsyncScript(script, args);
  }

  /** Forgets every cookie of every site, so the next page starts a fresh session. */
  public void clearCookies() {
    requireDriver().executeCdpCommand("Network.clearBrowserCookies", Map.of());
  }

  /** Forgets what was recorded so far: requests and console errors from here on belong to the caller. */
  public void resetRecording() {
    drainLogs();
    requests.clear();
    consoleErrors.clear();
  }

  /** Every request the pages made since the test started, in order. */
  public List<Request> requests() {
    drainLogs();
    return List.copyOf(requests);
  }

  /** The requests that went to another host than this machine's loopback. */
  public List<Request> externalRequests() {
    return requests().stream().filter(Request::external).toList();
  }

  /** Fails, listing each one, if any page of this test sent a request anywhere but loopback. */
  public void assertNoExternalRequests() {
    List<Request> external = externalRequests();
    if (!external.isEmpty()) {
      Assertions.fail("requests left for external hosts:\n  "
          + external.stream().map(Request::toString).collect(Collectors.joining("\n  ")));
    }
  }

  /** The errors the pages logged on their console since the test started (CSP violations among them). */
  public List<String> consoleErrors() {
    drainLogs();
    return List.copyOf(consoleErrors);
  }

  /** Fails, listing each one, if any page of this test logged an error on its console. */
  public void assertNoConsoleErrors() {
    List<String> errors = consoleErrors();
    if (!errors.isEmpty()) {
      Assertions.fail("the browser console has errors:\n  " + String.join("\n  ", errors));
    }
  }

  /** Saves what the window shows now as {@code target/screenshots/<name>.png} and returns the file. */
  public Path screenshot(String name) {
    assertThat(name).matches("[A-Za-z0-9._-]+");
    try {
      Path dir = Files.createDirectories(targetDir().resolve("screenshots"));
      Path file = dir.resolve(name + ".png");
      Files.write(file, driver.getScreenshotAs(OutputType.BYTES));
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Path targetDir() {
    return Path.of(System.getProperty("basedir", "."), "target");
  }

  /**
   * Moves what chromedriver buffered into the lists. Its buffers empty on every read, so each read
   * is kept here.
   */
  private void drainLogs() {
    if (driver == null) {
      return;
    }
    for (LogEntry entry : driver.manage().logs().get(LogType.PERFORMANCE)) {
      Request request = requestOf(entry.getMessage());
      if (request != null) {
        requests.add(request);
      }
    }
    for (LogEntry entry : driver.manage().logs().get(LogType.BROWSER)) {
      if (entry.getLevel().intValue() >= Level.SEVERE.intValue()) {
        consoleErrors.add(entry.getMessage());
      }
    }
  }

  private static Request requestOf(String message) {
    try {
      JsonNode event = JSON.readTree(message).path("message");
      String method = event.path("method").asText();
      JsonNode params = event.path("params");
      return switch (method) {
        case "Network.requestWillBeSent" ->
            new Request(
                params.path("request").path("method").asText(),
                params.path("request").path("url").asText(),
                params.path("type").asText("Other"));
        case "Network.webSocketCreated" -> new Request("GET", params.path("url").asText(), "WebSocket");
        default -> null;
      };
    } catch (IOException e) {
      throw new UncheckedIOException("chromedriver's performance log has an entry that is not JSON: " + message, e);
    }
  }
}
