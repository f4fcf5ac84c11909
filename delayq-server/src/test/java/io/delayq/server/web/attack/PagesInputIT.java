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
}
