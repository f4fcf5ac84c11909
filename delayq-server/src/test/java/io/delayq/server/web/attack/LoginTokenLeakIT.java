package io.delayq.server.web.attack;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.delayq.server.http.HttpSettings;
import io.delayq.server.web.attack.AttackServer.Answer;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The login form is an htmx form ({@code hx-post}) with neither {@code method} nor {@code action}:
 * when htmx has not run (JavaScript off, a blocked or still-loading script, a password manager
 * that submits at once) the browser submits it as a GET to the page's own URL, so the full token
 * lands in the URL bar, the browser history and the server's access log
 * ({@code GET /login?next=%2F&token=<token>}). Reproduced in headless Chromium with JavaScript off.
 */
class LoginTokenLeakIT {
  private static final String TOKEN = "full-" + UUID.randomUUID();
  private static final Pattern FORM = Pattern.compile("<form\\b([^>]*)>(.*?)</form>", Pattern.DOTALL);
  private static final Pattern ATTRIBUTE = Pattern.compile("([a-zA-Z-]+)=\"([^\"]*)\"");
  private static AttackServer server;

  @BeforeAll
  static void start() {
    server = AttackServer.start(HttpSettings.of("127.0.0.1", 0, TOKEN));
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void theLoginFormIsAPostEvenWithoutJavaScript() {
    Map<String, String> form = loginForm(server.get("/login?next=%2F", Map.of()));
    assertThat(form.getOrDefault("method", "get").toLowerCase(Locale.ROOT))
        .as("the login form's method: without it a browser without htmx sends the token in the URL (%s)", form)
        .isEqualTo("post");
  }

  @Test
  void aBrowserWithoutJavaScriptSubmittingTheLoginFormLeavesTheTokenOutOfTheAccessLog() {
    Logger access = (Logger) LoggerFactory.getLogger("io.delayq.server.access");
    Level before = access.getLevel();
    ListAppender<ILoggingEvent> lines = new ListAppender<>();
    lines.start();
    access.addAppender(lines);
    access.setLevel(Level.INFO);
    try {
      String page = "/login?next=%2F";
      Map<String, String> form = loginForm(server.get(page, Map.of()));
      // what the browser does with this form when htmx did not take it over
      String method = form.getOrDefault("method", "get").toUpperCase(Locale.ROOT);
      String action = form.getOrDefault("action", page);
      Map<String, String> fields = new LinkedHashMap<>();
      fields.put("next", "/");
      fields.put("token", TOKEN);
      Map<String, String> headers = Map.of("Sec-Fetch-Site", "same-origin", "Origin", "http://" + server.host());
      if (method.equals("GET")) {
        String target = action.contains("?") ? action.substring(0, action.indexOf('?')) : action;
        server.get(target + "?" + AttackServer.encode(fields), headers);
      } else {
        server.send("POST", action, fields, headers);
      }
      assertThat(lines.list).extracting(ILoggingEvent::getFormattedMessage)
          .as("the access log after a login without JavaScript")
          .isNotEmpty()
          .noneMatch(line -> line.contains(TOKEN));
    } finally {
      access.detachAppender(lines);
      access.setLevel(before);
    }
  }

  /** The attributes of the page's form that holds the token field. */
  private static Map<String, String> loginForm(Answer page) {
    assertThat(page.status()).as(page.toString()).isEqualTo(200);
    Matcher form = FORM.matcher(page.body());
    while (form.find()) {
      if (form.group(2).contains("name=\"token\"")) {
        Map<String, String> attributes = new LinkedHashMap<>();
        Matcher attribute = ATTRIBUTE.matcher(form.group(1));
        while (attribute.find()) {
          attributes.put(attribute.group(1).toLowerCase(Locale.ROOT), attribute.group(2));
        }
        return attributes;
      }
    }
    throw new AssertionError("no form with a token field on the login page:\n" + page.body());
  }
}
