package io.delayq.server.web.attack;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.delayq.server.http.HttpSettings;
import io.delayq.server.web.attack.AttackServer.Answer;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The login form posted by a browser without JavaScript: no {@code X-Delayq-Request} header, so
 * it is admitted only when the browser vouches for it, answers a 303 to {@code next}, and a token
 * sent in a URL is neither taken nor logged.
 */
class LoginFormPostIT {
  private static final String TOKEN = "full-" + UUID.randomUUID();
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

  private Answer plainLogin(String token, Map<String, String> headers) {
    return server.send("POST", "/login", Map.of("token", token, "next", "/workers"), headers);
  }

  @Test
  void aPlainFormPostFromThisServersPageLogsInAndLeadsToNext() {
    for (Map<String, String> vouched : java.util.List.of(Map.of("Sec-Fetch-Site", "same-origin"),
        Map.of("Origin", "http://" + server.host()))) {
      Answer login = plainLogin(TOKEN, vouched);
      assertThat(login.status()).as("%s: %s", vouched, login).isEqualTo(303);
      assertThat(login.header("Location")).isEqualTo("/workers");
      assertThat(login.header("HX-Redirect")).isNull();
      assertThat(login.sessionCookie()).startsWith("delayq_session=");
      Answer workers = server.get("/workers", Map.of("Cookie", login.sessionCookie()));
      assertThat(workers.status()).as(workers.toString()).isEqualTo(200);
    }
  }

  @Test
  void htmxStillGetsAFlashAndHxRedirect() {
    Answer login = server.send("POST", "/login", Map.of("token", TOKEN, "next", "/redis"), Map.of(
        "X-Delayq-Request", "dashboard", "Sec-Fetch-Site", "same-origin", "HX-Request", "true"));
    assertThat(login.status()).as(login.toString()).isEqualTo(200);
    assertThat(login.header("HX-Redirect")).isEqualTo("/redis");
    assertThat(login.body()).contains("data-flash=\"ok\"");
  }

  @Test
  void aPlainFormPostTheBrowserDoesNotVouchForIsRefused() {
    for (Map<String, String> headers : java.util.List.of(Map.<String, String>of(),
        Map.of("Sec-Fetch-Site", "cross-site"), Map.of("Sec-Fetch-Site", "same-site"),
        Map.of("Origin", "http://evil.example"), Map.of("Origin", "https://" + server.host()),
        Map.of("Origin", "http://127.0.0.1:1"), Map.of("Origin", "null"))) {
      Answer login = plainLogin(TOKEN, headers);
      assertThat(login.status()).as("%s: %s", headers, login).isEqualTo(403);
      assertThat(login.sessionCookie()).as(headers.toString()).isNull();
    }
  }

  @Test
  void aWrongTokenPostedPlainlyShowsTheFormAgainWithTheReason() {
    Answer login = plainLogin("wrong", Map.of("Sec-Fetch-Site", "same-origin"));
    assertThat(login.status()).isEqualTo(401);
    assertThat(login.sessionCookie()).isNull();
    assertThat(login.body()).contains("data-page=\"login\"").contains("data-flash=\"error\"")
        .contains("that token is wrong").contains("name=\"token\"").contains("value=\"/workers\"");
  }

  @Test
  void aTokenInTheUrlIsNotTakenNorLogged() {
    Logger access = (Logger) LoggerFactory.getLogger("io.delayq.server.access");
    Level before = access.getLevel();
    ListAppender<ILoggingEvent> lines = new ListAppender<>();
    lines.start();
    access.addAppender(lines);
    access.setLevel(Level.INFO);
    try {
      Answer page = server.get("/login?next=%2F&token=" + TOKEN, Map.of());
      assertThat(page.status()).isEqualTo(400);
      assertThat(page.sessionCookie()).isNull();
      assertThat(page.body()).contains("data-page=\"login\"").contains("a token in the URL is not accepted")
          .contains("method=\"post\"").doesNotContain(TOKEN);
      server.get("/login?TOKEN=" + TOKEN + "&next=%2F", Map.of());
      server.get("/login?%74oken=" + TOKEN, Map.of());
      assertThat(lines.list).extracting(ILoggingEvent::getFormattedMessage).hasSize(3)
          .noneMatch(line -> line.contains(TOKEN))
          .anyMatch(line -> line.contains("/login?next=%2F&token=REDACTED 400"));
    } finally {
      access.detachAppender(lines);
      access.setLevel(before);
    }
  }
}
