package io.delayq.server.cli;

import io.delayq.server.testing.ServerProcess;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@code java -jar target/delayq-server.jar <args>} as its own process, as a user would, and
 * captures its exit code, stdout and stderr. The environment is the test's minus every variable the
 * CLI reads, so the machine's {@code REDIS_URL} or {@code DELAYQ_TOKEN} cannot leak into a test.
 */
final class Cli {
  private static final List<String> CLI_ENV =
      List.of("REDIS_URL", "DELAYQ_SERVER", "DELAYQ_TOKEN", "DELAYQ_TOKEN_FILE", "DELAYQ_DATA_DIR", "DELAYQ_DEBUG");
  private static final long TIMEOUT_SECONDS = 60;
  /**
   * Class-data-sharing archives of the jar's classes, one per kind of run (Redis, HTTP, neither),
   * each written by the first run of its kind in this test JVM and mapped by every later one: that
   * takes about 40% off each launch.
   */
  private static final Path CDS_DIR = cdsDir();
  private static final Set<String> ARCHIVES_TRIED = new HashSet<>();

  private Cli() {}

  /** What one run printed and returned. */
  record Result(List<String> args, int exitCode, String out, String err) {
    List<String> outLines() {
      return out.lines().toList();
    }

    @Override
    public String toString() {
      return "delayq " + String.join(" ", args) + "\nexit code " + exitCode + "\n--- stdout\n" + out
          + "--- stderr\n" + err;
    }
  }

  static Result run(List<String> args) {
    return run(args, null, Map.of());
  }

  static Result run(String... args) {
    return run(List.of(args));
  }

  /**
   * @param stdin bytes for the process's stdin, or null for none
   * @param env variables to set on top of the cleaned environment
   */
  static Result run(List<String> args, byte[] stdin, Map<String, String> env) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // why: a CLI call lives well under a second; C1 only and one GC thread start it fastest
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-XX:+UseSerialGC");
    // why: JVM warnings (CDS's among them) go to stdout, which the tests read
    command.add("-Xlog:disable");
    String kind = args.contains("--redis") ? "redis" : args.contains("--server") ? "http" : "plain";
    String cds = cdsOption(kind);
    command.add(cds);
    command.add("-jar");
    command.add(ServerProcess.jar().toString());
    command.addAll(args);
    try {
      Path out = Files.createTempFile("delayq-cli-out-", ".txt");
      Path err = Files.createTempFile("delayq-cli-err-", ".txt");
      try {
        ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
        CLI_ENV.forEach(builder.environment()::remove);
        builder.environment().putAll(env);
        Process process = builder.start();
        try (var in = process.getOutputStream()) {
          if (stdin != null) {
            in.write(stdin);
          }
        }
        if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
          process.destroyForcibly();
          throw new AssertionError("delayq " + String.join(" ", args) + " did not end within " + TIMEOUT_SECONDS
              + " s; stdout:\n" + Files.readString(out) + "\nstderr:\n" + Files.readString(err));
        }
        if (cds.startsWith("-XX:ArchiveClassesAtExit=")) {
          publishArchive(kind);
        }
        return new Result(List.copyOf(args), process.exitValue(),
            Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
      } finally {
        Files.deleteIfExists(out);
        Files.deleteIfExists(err);
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot run " + command, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted running " + command, e);
    }
  }

  private static synchronized String cdsOption(String kind) {
    Path archive = CDS_DIR.resolve(kind + ".jsa");
    if (Files.isRegularFile(archive)) {
      return "-XX:SharedArchiveFile=" + archive;
    }
    if (ARCHIVES_TRIED.add(kind)) {
      return "-XX:ArchiveClassesAtExit=" + CDS_DIR.resolve(kind + ".pending");
    }
    return "-Xshare:auto";
  }

  /** Moves the archive a first run wrote into place whole, so no run maps a half-written one. */
  private static void publishArchive(String kind) throws IOException {
    Path pending = CDS_DIR.resolve(kind + ".pending");
    if (Files.isRegularFile(pending)) {
      Files.move(pending, CDS_DIR.resolve(kind + ".jsa"), StandardCopyOption.ATOMIC_MOVE);
    }
  }

  private static Path cdsDir() {
    try {
      Path dir = Files.createTempDirectory("delayq-cli-cds-");
      dir.toFile().deleteOnExit();
      for (String kind : List.of("redis", "http", "plain")) {
        dir.resolve(kind + ".pending").toFile().deleteOnExit();
        dir.resolve(kind + ".jsa").toFile().deleteOnExit();
      }
      return dir;
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A loopback port nothing listens on (free a moment ago). */
  static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
