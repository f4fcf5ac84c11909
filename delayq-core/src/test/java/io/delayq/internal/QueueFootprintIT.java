package io.delayq.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayq.JobQueue;
import io.delayq.JobRequest;
import io.delayq.embedded.RedisServerProcess;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What a queue handle costs the heap does not grow with its partition count: a process that
 * opens many wide queues (a server whose clients name them) stays small.
 */
class QueueFootprintIT {
  /** A Redis of its own: other suites list every queue, and this one makes hundreds of wide ones. */
  private static RedisServerProcess redis;

  @BeforeAll
  static void start() {
    redis = RedisServerProcess.builder().start();
  }

  @AfterAll
  static void stop() {
    redis.close();
  }

  @Test
  void aHandleOfAThousandPartitionQueueTakesAFewKilobytes() {
    int handles = 200;
    DelayqClient client = new DelayqClient(ServerTimeIT.settings(redis.uri()));
    try {
      // Every kind of call once first, so that what they load once per client is not counted.
      JobQueue warm = client.queue("warm", Rules.MAX_PARTITIONS);
      use(warm);
      List<JobQueue> held = new ArrayList<>(handles);
      long before = usedHeapAfterGc();
      for (int i = 0; i < handles; i++) {
        JobQueue queue = client.queue("wide-" + i, Rules.MAX_PARTITIONS);
        use(queue);
        held.add(queue);
      }
      long perHandle = (usedHeapAfterGc() - before) / handles;
      System.out.printf("heap per handle of a %d-partition queue: %,d bytes%n", Rules.MAX_PARTITIONS, perHandle);
      assertThat(held).hasSize(handles);
      assertThat(perHandle).isLessThan(16 * 1024);
    } finally {
      client.close();
    }
  }

  /** Touches the roles a server uses most: schedule, look up, claim. */
  private static void use(JobQueue queue) {
    queue.schedule(JobRequest.of("x").withId("job").withDelay(Duration.ofHours(1)));
    queue.get("job");
    queue.pull().claim(1000, Duration.ofSeconds(30));
  }

  private static long usedHeapAfterGc() {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 5; i++) {
      System.gc();
      used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
    }
    return used;
  }
}
