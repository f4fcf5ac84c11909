package io.delayq.server.web.attack;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayq.server.http.HttpSettings;
import io.delayq.server.web.attack.AttackServer.Answer;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * docs/DASHBOARD.md admits a dashboard POST without {@code Sec-Fetch-Site} only when its {@code Origin}
 * equals the request's own origin. The check compares only what follows {@code ://} with the
 * {@code Host} header, so an Origin of another scheme with the same host and port ({@code
 * https://...} on a plain-HTTP server, {@code evil://...}) is taken as this server's own.
 */
class OriginSchemeIT {
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
  void anOriginOfAnotherSchemeIsNotThisServersOwn() {
    String cookie = server.login(TOKEN);
    String queue = AttackServer.newQueue("atk-origin");
    for (String origin : List.of("https://" + server.host(), "evil://" + server.host())) {
      Answer pause = server.send("POST", "/queues/" + queue + "/pause", Map.of(),
          Map.of("Cookie", cookie, "X-Delayq-Request", "dashboard", "Origin", origin));
      assertThat(pause.status()).as("Origin %s on http://%s: %s", origin, server.host(), pause).isEqualTo(403);
      assertThat(AttackServer.delayq().queue(queue).admin().stats().paused()).as(origin).isFalse();
    }
  }
}
