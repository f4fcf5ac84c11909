package io.delayq.server.web.attack;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayq.server.http.HttpSettings;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * docs/DASHBOARD.md puts the security headers on every dashboard response. Answers to requests the
 * server could not read (request line or headers too long, two Host headers) on dashboard paths
 * are decided before the path is classified, so they go out as the API's JSON errors without
 * Content-Security-Policy, X-Frame-Options and Referrer-Policy.
 */
class ErrorAnswerHeadersIT {
  private static AttackServer server;

  @BeforeAll
  static void start() {
    server = AttackServer.start(HttpSettings.of("127.0.0.1", 0, "full-" + UUID.randomUUID()));
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void unreadableRequestsToDashboardPagesGetTheSecurityHeadersToo() {
    Map<String, String> requests = new LinkedHashMap<>();
    requests.put("request line too long (414)",
        "GET /queues/" + "a".repeat(9000) + " HTTP/1.1\r\nHost: " + server.host() + "\r\n\r\n");
    requests.put("headers too long (431)",
        "GET / HTTP/1.1\r\nHost: " + server.host() + "\r\nX-Filler: " + "a".repeat(20_000) + "\r\n\r\n");
    requests.put("two Host headers (400)",
        "GET / HTTP/1.1\r\nHost: " + server.host() + "\r\nHost: " + server.host() + "\r\n\r\n");
    SoftAssertions softly = new SoftAssertions();
    requests.forEach((what, request) -> {
      String head = server.rawHead(request.getBytes(StandardCharsets.ISO_8859_1)).toLowerCase();
      softly.assertThat(head).as(what + ":\n" + head).startsWith("http/1.1 4")
          .contains("content-security-policy: default-src 'self'")
          .contains("x-frame-options: deny")
          .contains("referrer-policy: same-origin");
    });
    softly.assertAll();
  }
}
