package io.delayq.server.web.attack;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayq.JobInfo;
import io.delayq.JobQueue;
import io.delayq.JobState;
import io.delayq.LeasedJob;
import io.delayq.server.web.attack.AttackServer.Answer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The bulk dead actions promise to act only on jobs that match the filter and were dead at or
 * before {@code asOf}. {@code delete-matching} scans first and then deletes the ids it found one by
 * one with {@code deleteDead(id)}, which checks neither the death time nor the error: a job that
 * another operator requeued meanwhile, and that then died again (after {@code asOf}, with another
 * error, so it matches nothing that was confirmed), is deleted all the same.
 */
class PagesDeadBulkRaceIT {
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
  void deleteMatchingNeverDeletesAJobThatDiedAgainAfterAsOfWithAnotherError() throws Exception {
    String name = AttackServer.newQueue("atk-bulkrace");
    JobQueue queue = AttackServer.delayq().queue(name);
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      ids.add(String.format("d%04d", i));
    }
    PagesAttack.kill(queue, ids, "boom: first failure");

    Answer count = PagesAttack.post(server, "/queues/" + name + "/dead/count", Map.of("error", "boom"));
    assertThat(count.status()).as("%s", count).isEqualTo(200);
    String expected = PagesAttack.hidden(count.body(), "expected");
    String asOf = PagesAttack.hidden(count.body(), "asOf");
    assertThat(expected).isEqualTo("1000");

    // Another operator requeues the newest confirmed jobs one by one; each runs and dies again
    // with an error that does not match "boom", after asOf: no longer what was confirmed.
    ConcurrentLinkedQueue<String> diedAgain = new ConcurrentLinkedQueue<>();
    CompletableFuture<Void> otherOperator = CompletableFuture.runAsync(() -> {
      for (int i = ids.size() - 1; i >= ids.size() - 400; i--) {
        String id = ids.get(i);
        if (!queue.admin().requeueDead(id)) {
          continue;
        }
        for (int round = 0; round < 1000; round++) {
          Optional<LeasedJob> job = queue.pull().claim(1, Duration.ofMinutes(1)).stream().findFirst();
          if (job.isPresent()) {
            queue.pull().bury(job.get().id(), job.get().token(), "disk full: second failure");
            diedAgain.add(job.get().id());
            break;
          }
        }
      }
    });
    Answer delete = PagesAttack.post(server, "/queues/" + name + "/dead/delete-matching",
        Map.of("error", "boom", "expected", expected, "asOf", asOf));
    otherOperator.get();

    List<String> lost = new ArrayList<>();
    for (String id : diedAgain) {
      Optional<JobInfo> job = queue.get(id);
      if (job.isEmpty() || job.get().state() != JobState.DEAD) {
        lost.add(id);
      }
    }
    assertThat(diedAgain).as("the other operator's requeue-and-die cycle ran").isNotEmpty();
    assertThat(lost)
        .as("jobs that died again after asOf with 'disk full' (not confirmed, not matching 'boom'), deleted by"
            + " delete-matching anyway (%s of %s re-killed); answer: %s", lost.size(), diedAgain.size(),
            PagesAttack.flash(delete))
        .isEmpty();
  }
}
