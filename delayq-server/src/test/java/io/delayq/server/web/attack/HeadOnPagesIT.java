package io.delayq.server.web.attack;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayq.server.http.HttpSettings;
import io.delayq.server.web.attack.AttackServer.Answer;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** HEAD on a dashboard page is admitted and answered as GET, without the body; the API keeps its 405. */
class HeadOnPagesIT {
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

  @Test
  void headOnAPageAnswersAsGetWithoutTheBody() {
    String cookie = server.login(TOKEN);
    Answer get = server.get("/workers", Map.of("Cookie", cookie));
    Answer head = server.send("HEAD", "/workers", null, Map.of("Cookie", cookie));
    assertThat(head.status()).as(head.toString()).isEqualTo(200);
    assertThat(head.body()).isEmpty();
    assertThat(head.header("Content-Type")).isEqualTo(get.header("Content-Type"));
    assertThat(head.header("Content-Security-Policy")).isEqualTo(get.header("Content-Security-Policy"));
    assertThat(head.header("Cache-Control")).isEqualTo("no-store");
    assertThat(Long.parseLong(head.header("Content-Length"))).isPositive();
  }

  @Test
  void headIsAdmittedAsGet() {
    Answer noSession = server.send("HEAD", "/workers", null, Map.of());
    assertThat(noSession.status()).as(noSession.toString()).isEqualTo(303);
    assertThat(noSession.header("Location")).isEqualTo("/login?next=%2Fworkers");
    Answer asset = server.send("HEAD", "/assets/htmx.org/2.0.8/dist/htmx.min.js", null, Map.of());
    assertThat(asset.status()).isEqualTo(200);
    assertThat(asset.header("Cache-Control")).isEqualTo("public, max-age=31536000, immutable");
    assertThat(server.send("HEAD", "/login", null, Map.of()).status()).isEqualTo(200);
    assertThat(server.send("HEAD", "/no-such-page", null, Map.of()).status()).isEqualTo(404);
  }

  @Test
  void theApiStillAnswersHeadWith405() {
    Answer api = server.send("HEAD", "/v1/queues", null, Map.of("Authorization", "Bearer " + TOKEN));
    assertThat(api.status()).isEqualTo(405);
  }
}
