package io.delayq.server.web.attack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.JobQueue;
import io.delayq.JobRequest;
import io.delayq.LeasedJob;
import io.delayq.server.web.attack.AttackServer.Answer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A worker JVM killed with -9 leaves its jobs with leases that end unacked: delayq-core calls them
 * expired ({@code JobFilter.EXPIRED}) until a claim recovers them, which never happens while no
 * worker runs. The queue page counts them ("Active 0 (1 expired)") but lists them nowhere: the
 * active tab lists {@code JobFilter.ACTIVE} only, and there is no state that shows expired jobs,
 * so the operator looking into the crash cannot see which jobs were stuck or who held them.
 */
class PagesExpiredLeaseIT {
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
  void aJobWhoseWorkerDiedIsListedOnTheQueuePage() {
    String name = AttackServer.newQueue("atk-expired");
    JobQueue queue = AttackServer.delayq().queue(name);
    queue.schedule(JobRequest.of("work").withId("orphan"));
    List<LeasedJob> claimed = new ArrayList<>();
    await().atMost(Duration.ofSeconds(10)).until(() -> {
      claimed.addAll(queue.pull().claim(1, Duration.ofSeconds(1)));
      return !claimed.isEmpty();
    });
    assertThat(claimed).extracting(LeasedJob::id).containsExactly("orphan");
    // the worker dies here: no ack, no nack, no lease extension
    await().atMost(Duration.ofSeconds(10)).until(() -> queue.admin().stats().expired() == 1);

    List<String> shownIn = new ArrayList<>();
    for (String state : new String[] {"scheduled", "due", "active", "dead", "expired"}) {
      Answer page = PagesAttack.get(server, "/queues/" + name + "?state=" + state);
      if (page.status() == 200 && page.body().contains("data-row=\"orphan\"")) {
        shownIn.add(state);
      }
    }
    Answer active = PagesAttack.get(server, "/queues/" + name + "?state=active");
    assertThat(active.body()).contains("data-count=\"expired\">(1 expired)");
    assertThat(shownIn).as("queue page states listing the job whose lease expired").isNotEmpty();
  }
}
