package io.delayq.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the demo in-process on the Redis named by {@code DELAYQ_TEST_REDIS}, or else on an embedded
 * one kept in a temp dir.
 */
class DemoMainIT {
  private static final String SUMMARY =
      "delivered 500/500, lost 0, duplicates 0, early 0,"
          + " lateness p50 [0-9.]+ ms p99 [0-9.]+ ms max [0-9.]+ ms";

  @TempDir Path dataDir;

  @Test
  void deliversEveryOrderExactlyOnceAndNeverEarly() throws Exception {
    String testRedis = System.getenv("DELAYQ_TEST_REDIS");
    boolean embedded = testRedis == null || testRedis.isBlank();
    List<String> args = new ArrayList<>(List.of("--jobs=500", "--seconds=2", "--data-dir=" + dataDir));
    if (!embedded) {
      args.add("--redis=" + testRedis);
    }
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(captured, true, StandardCharsets.UTF_8);

    // An empty environment: a REDIS_URL of the machine running the tests must not be picked up.
    OrderCancellationDemo.Result result = DemoMain.run(args.toArray(String[]::new), Map.of(), out);

    String printed = captured.toString(StandardCharsets.UTF_8);
    System.out.print(printed);
    List<String> lines = printed.lines().toList();
    assertThat(lines).last().asString().matches(SUMMARY);
    assertThat(lines).filteredOn(line -> line.startsWith("delivered ")).hasSize(1);
    assertThat(result.success()).isTrue();
    assertThat(result.jobs()).isEqualTo(500);
    assertThat(result.delivered()).isEqualTo(500);
    assertThat(result.deliveries()).isEqualTo(500);
    assertThat(result.lost()).isZero();
    assertThat(result.duplicates()).isZero();
    assertThat(result.early()).isZero();
    assertThat(result.dueMismatches()).isZero();
    assertThat(result.lateness().count()).isEqualTo(500);
    assertThat(result.handledByA() + result.handledByB()).isEqualTo(500);
    assertThat(result.summaryLine()).isEqualTo(lines.get(lines.size() - 1));

    if (embedded) {
      assertThat(lines.get(0))
          .startsWith("delayq demo: no REDIS_URL set; started embedded Redis ")
          .contains("(AOF on, data in " + dataDir.resolve("redis") + ")");
      // Redis 6 writes appendonly.aof, Redis 7 a directory of appendonly.aof.* files.
      StringBuilder aof = new StringBuilder();
      try (Stream<Path> files = Files.walk(dataDir.resolve("redis"))) {
        for (Path file : files.filter(f -> f.getFileName().toString().startsWith("appendonly")).toList()) {
          if (Files.isRegularFile(file)) {
            aof.append(Files.readString(file, StandardCharsets.ISO_8859_1));
          }
        }
      }
      assertThat(aof).as("the AOF, kept after the run").contains(result.queue());
    } else {
      assertThat(lines.get(0)).startsWith("delayq demo: using Redis at ");
    }
  }
}
