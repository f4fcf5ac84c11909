package io.delayq.server.web.attack;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayq.server.http.HttpSettings;
import io.delayq.server.web.attack.AttackServer.Answer;
import java.util.Map;
import java.util.UUID;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

/**
 * {@code --base-path} accepts any valid-looking prefix, including the API's own paths. Since
 * every request's path is stripped of the base path before routing, {@code --base-path /v1} turns
 * {@code /v1/queues} into the dashboard's {@code /queues} (the whole API answers HTML 404s and
 * CSRF 403s), and {@code /health} or {@code /metrics} turn health checks and scrapes into 303s to
 * the login page. Such a base path must be refused at start, or leave the API where it is.
 */
class BasePathShadowsApiIT {
  private static final String TOKEN = "full-" + UUID.randomUUID();

  @Test
  void aBasePathNamedLikeAnApiPathIsRefusedOrLeavesTheApiAlone() {
    Map<String, String> bearer = Map.of("Authorization", "Bearer " + TOKEN);
    Map<String, String> apiPathOf = Map.of("/v1", "/v1/queues?limit=1", "/health", "/health",
        "/metrics", "/metrics", "/openapi.json", "/openapi.json");
    SoftAssertions softly = new SoftAssertions();
    apiPathOf.forEach((basePath, apiPath) -> {
      HttpSettings settings;
      try {
        settings = HttpSettings.of("127.0.0.1", 0, TOKEN).withBasePath(basePath);
      } catch (IllegalArgumentException refused) {
        return;
      }
      try (AttackServer server = AttackServer.start(settings)) {
        Answer answer = server.get(apiPath, bearer);
        softly.assertThat(answer.status()).as("--base-path %s, GET %s: %s", basePath, apiPath, answer).isEqualTo(200);
        softly.assertThat(answer.header("Content-Type")).as("--base-path %s, GET %s", basePath, apiPath)
            .doesNotStartWith("text/html");
      }
    });
    softly.assertAll();
  }

  @Test
  void withBasePathV1AnApiCallStillReachesTheApi() {
    HttpSettings settings;
    try {
      settings = HttpSettings.of("127.0.0.1", 0, TOKEN).withBasePath("/v1");
    } catch (IllegalArgumentException refused) {
      return;
    }
    String queue = AttackServer.newQueue("atk-bp");
    try (AttackServer server = AttackServer.start(settings)) {
      Answer pause = server.send("POST", "/v1/queues/" + queue + "/pause", null,
          Map.of("Authorization", "Bearer " + TOKEN));
      assertThat(pause.status()).as(pause.toString()).isIn(200, 204);
      assertThat(AttackServer.delayq().queue(queue).admin().stats().paused()).isTrue();
    }
  }
}
