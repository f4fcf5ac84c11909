package io.delayq.server.web.attack;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayq.JobQueue;
import io.delayq.server.web.attack.AttackServer.Answer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code asOf} is meant to be the moment of the count that the operator confirmed; the server takes
 * any value up to the year 2100 from the form. A confirmation whose {@code asOf} lies in the future
 * (an old tab's form edited, a script that "confirms" with a far asOf and a generous expected)
 * covers jobs that die after the request: nothing ties the action to a count that was shown.
 */
class PagesBulkAsOfIT {
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
  void anAsOfLaterThanNowIsRefused() {
    String name = AttackServer.newQueue("atk-asof");
    JobQueue queue = AttackServer.delayq().queue(name);
    PagesAttack.kill(queue, List.of("a", "b"), "boom");
    String future = Long.toString(Instant.now().plus(Duration.ofDays(365)).toEpochMilli());
    Answer answer = PagesAttack.post(server, "/queues/" + name + "/dead/delete-matching",
        Map.of("error", "boom", "expected", "1000", "asOf", future));
    assertThat(answer.status()).as("asOf a year ahead: %s %s", answer.status(), PagesAttack.flash(answer)).isEqualTo(400);
    assertThat(queue.admin().stats().dead()).isEqualTo(2);
  }
}
