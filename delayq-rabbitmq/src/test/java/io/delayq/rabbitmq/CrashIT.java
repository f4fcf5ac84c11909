package io.delayq.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.Delayq;
import io.delayq.JobQueue;
import io.delayq.JobRequest;
import io.delayq.testing.TestRedis;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The forwarder's process dies after the broker confirmed and before delayq recorded the ack: the
 * jobs are delivered again by the next forwarder, with the same messageId, at most one window of
 * them, and none is lost.
 */
class CrashIT {
  @Test
  void aForwarderKilledBetweenConfirmAndRecordCausesAtMostOneWindowOfDuplicatesWithTheSameMessageId()
      throws Exception {
    TestRabbit.assumeReachable();
    int n = 500;
    int window = 50;
    try (Delayq delayq = Delayq.connect(TestRedis.url());
        TestRabbit.Sink sink = new TestRabbit.Sink("crash")) {
      JobQueue queue = delayq.queue(TestRedis.uniqueQueue("rabbit-crash"));
      List<JobRequest> requests = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        requests.add(JobRequest.of("k" + i).withId("k" + i));
      }
      queue.scheduleAll(requests);

      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      Process child = new ProcessBuilder(java, "-cp", classPath(), ForwarderChild.class.getName(),
          TestRedis.url(), queue.name(), TestRabbit.url(), sink.exchange, sink.key, Integer.toString(window))
          .redirectErrorStream(true)
          .start();
      int confirmed;
      try {
        confirmed = awaitConfirmed(child);
      } finally {
        child.destroyForcibly();
        child.waitFor(30, TimeUnit.SECONDS);
      }
      assertThat(confirmed).isBetween(1, window);
      await().atMost(Duration.ofSeconds(10)).until(() -> sink.distinct() >= confirmed);
      assertThat(queue.admin().stats().active()).as("the dead forwarder's leases are still held").isPositive();

      try (RabbitForwarder next = RabbitForwarder.builder(queue, TestRabbit.factory())
          .exchange(sink.exchange)
          .routingKey(sink.key)
          .maxInFlight(window)
          .start()) {
        await().atMost(Duration.ofSeconds(60)).until(() -> sink.distinct() == n);
        await().atMost(Duration.ofSeconds(10)).until(() -> {
          var s = queue.admin().stats();
          return s.scheduled() == 0 && s.active() == 0 && s.dead() == 0;
        });
      }
      long duplicates = sink.republished();
      System.out.printf("crash between confirm and record: %d confirmed before the kill, %d duplicates%n",
          confirmed, duplicates);
      assertThat(duplicates).as("the confirmed-but-unrecorded jobs are delivered again").isGreaterThanOrEqualTo(confirmed);
      assertThat(duplicates).as("at most one window").isLessThanOrEqualTo(window);
      assertThat(sink.firstDeliveries.values()).allSatisfy(c -> assertThat(c.get()).isBetween(1, 2));
      assertThat(sink.duplicates()).as("no broker restart here: every duplicate is a second publish").isEqualTo(duplicates);
    }
  }

  private static int awaitConfirmed(Process child) throws Exception {
    BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
    CompletableFuture<Integer> seen = CompletableFuture.supplyAsync(() -> {
      StringBuilder all = new StringBuilder();
      try {
        String line;
        while ((line = out.readLine()) != null) {
          if (line.startsWith("CONFIRMED ")) {
            return Integer.parseInt(line.substring("CONFIRMED ".length()).trim());
          }
          all.append(line).append('\n');
        }
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
      throw new IllegalStateException("the child forwarder ended without a confirm:\n" + all);
    });
    return seen.get(60, TimeUnit.SECONDS);
  }

  /** The test JVM's class path (surefire's manifest-only jar hides it from java.class.path). */
  private static String classPath() {
    String cp = System.getProperty("surefire.test.class.path");
    return cp != null && !cp.isBlank() ? cp : System.getProperty("java.class.path").replace(' ', File.pathSeparatorChar);
  }
}
