package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayq.testing.ScheduleWorkerProcess;
import io.delayq.testing.TestRedis;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A one-second schedule for thirty seconds, in real time, across two worker JVMs on a real Redis:
 * every second fires once, in one of the two, with its lateness measured.
 */
class SchedulesRealTimeIT {
  private record Fire(String process, String id, long due, long started) {}

  @Test
  void aOneSecondScheduleFiresEverySecondOnceAcrossTwoWorkerProcesses() throws Exception {
    String queueName = TestRedis.uniqueQueue("realtime");
    Map<String, Fire> fires = new ConcurrentHashMap<>();
    List<String> duplicates = java.util.Collections.synchronizedList(new ArrayList<>());
    List<Process> processes = new ArrayList<>();
    CountDownLatch ready = new CountDownLatch(2);
    try (Delayq delayq = Delayq.connect(TestRedis.url())) {
      JobQueue queue = delayq.queue(queueName, 4);
      for (int i = 0; i < 2; i++) {
        String processName = "worker-" + i;
        Process p = new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"),
                ScheduleWorkerProcess.class.getName(), TestRedis.url(), queueName)
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
        processes.add(p);
        Thread reader = new Thread(() -> {
          try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = in.readLine()) != null; ) {
              if (line.equals("READY")) {
                ready.countDown();
              } else if (line.startsWith("FIRED ")) {
                String[] f = line.split(" ");
                Fire fire = new Fire(processName, f[1], Long.parseLong(f[2]), Long.parseLong(f[3]));
                if (fires.putIfAbsent(fire.id(), fire) != null) {
                  duplicates.add(fire.id());
                }
              }
            }
          } catch (java.io.IOException e) {
            // the process ended
          }
        });
        reader.setDaemon(true);
        reader.start();
      }
      assertThat(ready.await(60, TimeUnit.SECONDS)).as("both worker processes started").isTrue();
      queue.schedules().set(Schedule.every("second", Duration.ofSeconds(1)));
      long startedAt = System.nanoTime();
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(200))
          .until(() -> System.nanoTime() - startedAt >= TimeUnit.SECONDS.toNanos(30));
      queue.schedules().remove("second");
    } finally {
      for (Process p : processes) {
        p.getOutputStream().close();
      }
      for (Process p : processes) {
        if (!p.waitFor(20, TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      }
    }
    assertThat(duplicates).as("occurrences fired twice").isEmpty();
    List<Fire> ordered = fires.values().stream().sorted(java.util.Comparator.comparingLong(Fire::due)).toList();
    assertThat(ordered.size()).as("fires in 30 s").isBetween(29, 31);
    for (int i = 1; i < ordered.size(); i++) {
      assertThat(ordered.get(i).due() - ordered.get(i - 1).due()).as("no second skipped or doubled").isEqualTo(1000);
    }
    long[] lateness = ordered.stream().mapToLong(f -> f.started() - f.due()).sorted().toArray();
    assertThat(lateness[0]).as("none early").isGreaterThanOrEqualTo(0);
    Map<String, Integer> perProcess = new HashMap<>();
    ordered.forEach(f -> perProcess.merge(f.process(), 1, Integer::sum));
    System.out.printf("1-second schedule, 30 s, 2 worker processes: %d fires %s, lateness p50 %d ms, p99 %d ms, max %d ms%n",
        ordered.size(), perProcess, lateness[lateness.length / 2], lateness[(int) Math.ceil(lateness.length * 0.99) - 1],
        lateness[lateness.length - 1]);
    assertThat(lateness[lateness.length - 1]).as("worst lateness, bounded by the wake-up and the sweep").isLessThan(1000);
  }
}
