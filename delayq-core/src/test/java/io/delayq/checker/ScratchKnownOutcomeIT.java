package io.delayq.checker;

import io.delayq.Delayq;
import io.delayq.JobQueue;
import io.delayq.JobRequest;
import io.delayq.OutcomeUnknownException;
import io.delayq.RedisUnavailableException;
import io.delayq.embedded.RedisClusterProcesses;
import io.delayq.testing.TestRedis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** SCRATCH experiment, not to be committed: does a scheduleAll that throws RedisUnavailableException write anything? */
class ScratchKnownOutcomeIT {
  @Test
  void standalone() {
    run(TestRedis.url());
  }

  @Test
  void cluster() {
    try (RedisClusterProcesses cluster = RedisClusterProcesses.builder().replicasPerMaster(0).start()) {
      run(cluster.seedUrl());
    }
  }

  private void run(String url) {
    String name = TestRedis.uniqueQueue("scratch-known");
    int calls = 0;
    int unavailable = 0;
    int unknown = 0;
    List<List<String>> failedIds = new ArrayList<>();
    long end = System.nanoTime() + Duration.ofSeconds(Long.getLong("scratch.seconds", 20)).toNanos();
    int timeoutMs = 1;
    while (System.nanoTime() - end < 0) {
      try (Delayq impatient = Delayq.builder().redisUrl(url).commandTimeout(Duration.ofMillis(1 + (timeoutMs++ % 3))).build()) {
        JobQueue q;
        try {
          q = impatient.queue(name, 16);
        } catch (RuntimeException e) {
          continue;
        }
        for (int i = 0; i < 300 && System.nanoTime() - end < 0; i++) {
          List<JobRequest> requests = new ArrayList<>();
          List<String> ids = new ArrayList<>();
          for (int k = 0; k < 16; k++) {
            String id = "c" + calls + "-" + k;
            ids.add(id);
            requests.add(JobRequest.of("x").withId(id).withDelay(Duration.ofHours(1)));
          }
          calls++;
          try {
            q.scheduleAll(requests);
          } catch (RedisUnavailableException e) {
            unavailable++;
            failedIds.add(ids);
          } catch (OutcomeUnknownException e) {
            unknown++;
          } catch (RuntimeException e) {
            System.out.println("other: " + e);
          }
        }
      } catch (RuntimeException e) {
        // connect failed
      }
    }
    int written = 0;
    int callsWithWrites = 0;
    try (Delayq patient = Delayq.connect(url)) {
      JobQueue q = patient.queue(name, 16);
      for (List<String> ids : failedIds) {
        int here = 0;
        for (String id : ids) {
          if (q.get(id).isPresent()) {
            here++;
          }
        }
        written += here;
        if (here > 0) {
          callsWithWrites++;
          if (callsWithWrites <= 5) {
            System.out.println("SCRATCH call with ids " + ids.get(0) + ".. threw RedisUnavailableException but wrote "
                + here + " of " + ids.size() + " jobs");
          }
        }
      }
    }
    System.out.println("SCRATCH " + url + ": " + calls + " scheduleAll calls of 16 jobs, " + unavailable
        + " threw RedisUnavailableException, " + unknown + " OutcomeUnknownException; of the unavailable ones "
        + callsWithWrites + " wrote jobs anyway (" + written + " jobs)");
  }
}
