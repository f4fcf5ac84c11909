package io.delayq.server.web.attack;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayq.JobQueue;
import io.delayq.JobRequest;
import io.delayq.server.web.attack.AttackServer.Answer;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Form input an operator can type into the reschedule form. A runAt far in the past passes the
 * dashboard's "too far away" check (which only looks forward) and overflows in delayq-core's
 * conversion to epoch milliseconds: the operator gets a 500 "failed unexpectedly" instead of a
 * clear refusal (or "due now", as the core documents for a past instant).
 */
class PagesInputIT {
  private static AttackServer server;

  @BeforeAll
  static void start() {
    server = PagesAttack.open();
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void aRunAtFarInThePastIsAnsweredClearlyNotWithA500() {
    String name = AttackServer.newQueue("atk-input");
    JobQueue queue = AttackServer.delayq().queue(name);
    queue.schedule(JobRequest.of("p").withId("job").withDelay(Duration.ofHours(2)));
    for (String runAt : new String[] {"-999999999-01-01T00:00Z", "-290000000-01-01T00:00:00Z"}) {
      Answer answer = PagesAttack.post(server, "/queues/" + name + "/jobs/job/reschedule", Map.of("runAt", runAt));
      assertThat(answer.status())
          .as("runAt=%s: %s %s", runAt, answer.status(), PagesAttack.flash(answer))
          .isIn(200, 400);
    }
  }

  @Test
  void aRunAtBefore1970IsRefusedWithTheValidRange() {
    String name = AttackServer.newQueue("atk-input");
    AttackServer.delayq().queue(name).schedule(JobRequest.of("p").withId("job").withDelay(Duration.ofHours(2)));
    Answer answer = PagesAttack.post(server, "/queues/" + name + "/jobs/job/reschedule", Map.of("runAt", "1969-12-31T23:59:59Z"));
    assertThat(answer.status()).isEqualTo(400);
    assertThat(PagesAttack.flash(answer)).contains("1970-01-01T00:00:00Z").contains("days from now");
  }

  @Test
  void theApiRefusesAFarPastRunAtWith400Too() throws Exception {
    String name = AttackServer.newQueue("atk-input");
    AttackServer.delayq().queue(name).schedule(JobRequest.of("p").withId("job").withDelay(Duration.ofHours(2)));
    java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
    String far = "\"-290000000-01-01T00:00:00Z\"";
    java.net.http.HttpResponse<String> patch = http.send(java.net.http.HttpRequest.newBuilder(
            java.net.URI.create(server.baseUrl() + "/v1/queues/" + name + "/jobs/job"))
        .header("Content-Type", "application/json")
        .method("PATCH", java.net.http.HttpRequest.BodyPublishers.ofString("{\"runAt\":" + far + "}")).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString());
    java.net.http.HttpResponse<String> post = http.send(java.net.http.HttpRequest.newBuilder(
            java.net.URI.create(server.baseUrl() + "/v1/queues/" + name + "/jobs"))
        .header("Content-Type", "application/json")
        .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{\"payload\":\"x\",\"runAt\":" + far + "}")).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString());
    assertThat(patch.statusCode()).as("PATCH %s", patch.body()).isEqualTo(400);
    assertThat(patch.body()).contains("1970-01-01T00:00:00Z");
    assertThat(post.statusCode()).as("POST %s", post.body()).isEqualTo(400);
  }

  @Test
  void bidiAndControlCharactersInPayloadsErrorsAndIdsAreShownEscaped() {
    String name = AttackServer.newQueue("atk-input");
    JobQueue queue = AttackServer.delayq().queue(name);
    queue.schedule(JobRequest.of("pay to \u202Eevil\u202C \u0085").withId("bidi").withDelay(Duration.ofHours(2)));
    Answer job = PagesAttack.get(server, "/queues/" + name + "/jobs/bidi");
    assertThat(job.status()).isEqualTo(200);
    assertThat(job.body()).contains("pay to \\u202Eevil\\u202C \\u0085").doesNotContain("\u202E").doesNotContain("\u0085");
    Answer find = PagesAttack.get(server, "/find?queue=" + name + "&id=" + java.net.URLEncoder.encode("gpj.\u202Eexe",
        java.nio.charset.StandardCharsets.UTF_8));
    assertThat(find.body()).doesNotContain("\u202E");
    if (find.body().contains("No job")) {
      assertThat(find.body()).contains("gpj.\\u202Eexe");
    }
  }
}
