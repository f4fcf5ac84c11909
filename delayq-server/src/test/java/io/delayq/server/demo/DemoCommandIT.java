package io.delayq.server.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayq.server.testing.ServerProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs {@code java -jar delayq-server.jar demo} as a process, as the README tells a newcomer to, on
 * the Redis named by {@code DELAYQ_TEST_REDIS}, or else on the embedded one it starts itself.
 */
class DemoCommandIT {
  private static final String SUMMARY =
      "delivered 500/500, lost 0, duplicates 0, early 0,"
          + " lateness p50 [0-9.]+ ms p99 [0-9.]+ ms max [0-9.]+ ms";

  @TempDir Path dataDir;

  @Test
  void deliversEveryOrderExactlyOnceAndNeverEarly() throws Exception {
    String testRedis = ServerProcess.testRedis();
    boolean embedded = testRedis == null;
    List<String> args = new ArrayList<>(List.of("demo", "--jobs", "500", "--seconds", "2", "--data-dir", dataDir.toString()));
    if (!embedded) {
      args.add("--redis");
      args.add(testRedis);
    }

    Run run = run(args);

    System.out.print(run.out());
    List<String> lines = run.out().lines().toList();
    assertThat(run.exitCode()).as("exit code; stderr:\n%s", run.err()).isZero();
    assertThat(lines).last().asString().matches(SUMMARY);
    assertThat(lines).filteredOn(line -> line.startsWith("delivered ")).hasSize(1);
    assertThat(lines).anyMatch(line -> line.matches("client A handled \\d+, client B handled \\d+"));
    assertThat(lines).noneMatch(line -> line.contains("timed out") || line.contains("due time other than"));

    if (embedded) {
      assertThat(lines.get(0))
          .startsWith("delayq demo: no Redis given (--redis, REDIS_URL); started embedded Redis ")
          .contains("(AOF on, data in " + dataDir.resolve("redis") + ")");
      String queue = lines.get(1).split(" ")[1];
      assertThat(queue).startsWith("demo-orders-");
      // Redis 6 writes appendonly.aof, Redis 7 a directory of appendonly.aof.* files.
      StringBuilder aof = new StringBuilder();
      try (Stream<Path> files = Files.walk(dataDir.resolve("redis"))) {
        for (Path file : files.filter(f -> f.getFileName().toString().startsWith("appendonly")).toList()) {
          if (Files.isRegularFile(file)) {
            aof.append(Files.readString(file, StandardCharsets.ISO_8859_1));
          }
        }
      }
      assertThat(aof).as("the AOF, kept after the run").contains(queue);
    } else {
      assertThat(lines.get(0)).startsWith("delayq demo: using Redis at ");
    }
  }

  @Test
  void badArgumentsAreAUsageError() throws Exception {
    Run run = run(List.of("demo", "--jobs", "0"));
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err().strip()).isEqualTo(
        "delayq demo: --jobs must be a whole number from 1 to 10000000; got 0. See 'delayq demo --help'");
  }

  record Run(int exitCode, String out, String err) {}

  private static Run run(List<String> args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar", ServerProcess.jar().toString()));
    command.addAll(args);
    Path out = Files.createTempFile("delayq-demo-out-", ".txt");
    Path err = Files.createTempFile("delayq-demo-err-", ".txt");
    try {
      ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
      // the machine's REDIS_URL must not be picked up: the test says which Redis to use
      builder.environment().remove("REDIS_URL");
      builder.environment().remove("DELAYQ_DATA_DIR");
      Process process = builder.start();
      process.getOutputStream().close();
      if (!process.waitFor(120, TimeUnit.SECONDS)) {
        process.destroy();
        process.waitFor(20, TimeUnit.SECONDS);
        throw new AssertionError("demo did not end within 120 s; output:\n" + Files.readString(out));
      }
      return new Run(process.exitValue(), Files.readString(out), Files.readString(err));
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }
}
