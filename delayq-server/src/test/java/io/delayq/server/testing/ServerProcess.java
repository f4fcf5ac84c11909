package io.delayq.server.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The real {@code delayq-server.jar}, built by {@code package} before the integration tests run,
 * started as a separate JVM. It uses the Redis named by {@code DELAYQ_TEST_REDIS} when set (CI), and
 * otherwise starts its own embedded Redis, as a newcomer's first run does. Stopped with SIGTERM.
 */
public final class ServerProcess implements AutoCloseable {
  /** The line the server prints once it accepts requests. */
  private static final Pattern LISTENING = Pattern.compile("listening on (https?://[^\\s]+)");
  private static final Duration STARTUP = Duration.ofSeconds(60);
  /** The line the server prints once its embedded Redis runs. */
  private static final Pattern EMBEDDED_REDIS = Pattern.compile("embedded Redis ready: pid \\d+, (redis://[^\\s,]+)");

  private final Process process;
  private final List<String> output = new CopyOnWriteArrayList<>();
  private final String baseUrl;
  private final Path dataDir;
  private final Thread reader;
  private final String redisArg;

  private ServerProcess(List<String> args, Path dataDir) throws IOException {
    this(List.of(), args, dataDir);
  }

  private ServerProcess(List<String> jvmOptions, List<String> args, Path dataDir) throws IOException {
    this.dataDir = dataDir;
    int redisAt = args.indexOf("--redis");
    this.redisArg = redisAt >= 0 && redisAt + 1 < args.size() ? args.get(redisAt + 1) : null;
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.add("-jar");
    command.add(jar().toString());
    command.addAll(args);
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    scrubEnvironment(builder);
    this.process = builder.start();
    CompletableFuture<String> url = new CompletableFuture<>();
    this.reader = new Thread(() -> {
      try (BufferedReader lines =
          new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = lines.readLine()) != null) {
          output.add(line);
          Matcher m = LISTENING.matcher(line);
          if (m.find()) {
            url.complete(m.group(1));
          }
        }
      } catch (IOException e) {
        // the process ended
      }
      url.completeExceptionally(new IllegalStateException("server exited before listening:\n" + String.join("\n", output)));
    }, "server-output");
    reader.setDaemon(true);
    reader.start();
    try {
      this.baseUrl = url.get(STARTUP.toSeconds(), TimeUnit.SECONDS);
    } catch (Exception e) {
      process.destroyForcibly();
      throw new IllegalStateException("server did not start within " + STARTUP + ": " + e.getMessage()
          + "\noutput:\n" + String.join("\n", output), e);
    }
  }

  /** The path of the shaded jar under test. */
  public static Path jar() {
    Path jar = Path.of("target", "delayq-server.jar").toAbsolutePath();
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(jar + " is missing: run the integration tests through `mvn verify`,"
          + " which packages the jar first");
    }
    return jar;
  }

  /**
   * Starts {@code delayq serve --port 0} on the test Redis (or an embedded one, with its data in a
   * fresh temp dir), plus {@code extraArgs}.
   */
  public static ServerProcess start(String... extraArgs) throws IOException {
    Path dataDir = Files.createTempDirectory("delayq-server-it-");
    List<String> args = new ArrayList<>(List.of("serve", "--port", "0", "--data-dir", dataDir.toString()));
    String redis = testRedis();
    if (redis != null) {
      args.add("--redis");
      args.add(redis);
    }
    args.addAll(List.of(extraArgs));
    return new ServerProcess(args, dataDir);
  }

  /**
   * Like {@link #start(String...)}, with options for the server's JVM (e.g. {@code -Xmx256m}, to
   * show that a hostile client cannot exhaust a small heap).
   */
  public static ServerProcess startWithJvm(List<String> jvmOptions, String... extraArgs) throws IOException {
    Path dataDir = Files.createTempDirectory("delayq-server-it-");
    List<String> args = new ArrayList<>(List.of("serve", "--port", "0", "--data-dir", dataDir.toString()));
    String redis = testRedis();
    if (redis != null) {
      args.add("--redis");
      args.add(redis);
    }
    args.addAll(List.of(extraArgs));
    return new ServerProcess(jvmOptions, args, dataDir);
  }

  /**
   * Starts {@code delayq serve --port 0} with the embedded Redis keeping its data in {@code dataDir},
   * whatever {@code DELAYQ_TEST_REDIS} says: for tests of the embedded Redis itself (persistence
   * across restarts, shutdown order).
   */
  public static ServerProcess startEmbedded(Path dataDir, String... extraArgs) throws IOException {
    List<String> args = new ArrayList<>(List.of("serve", "--port", "0", "--data-dir", dataDir.toString()));
    args.addAll(List.of(extraArgs));
    return new ServerProcess(args, dataDir);
  }

  /**
   * Starts the jar with exactly {@code args}, no command put in front: for tests of how the command
   * line picks {@code serve}. {@code dataDir} is only remembered for {@link #dataDir()}.
   */
  public static ServerProcess startWithArguments(Path dataDir, List<String> args) throws IOException {
    return new ServerProcess(List.copyOf(args), dataDir);
  }

  /**
   * As {@link #startEmbedded(Path, String...)}, with options for the server's JVM (e.g. {@code
   * -Xmx256m}), for tests of what the server costs.
   */
  public static ServerProcess startEmbedded(List<String> jvmOptions, Path dataDir, String... extraArgs) throws IOException {
    List<String> args = new ArrayList<>(List.of("serve", "--port", "0", "--data-dir", dataDir.toString()));
    args.addAll(List.of(extraArgs));
    return new ServerProcess(jvmOptions, args, dataDir);
  }

  /** What a run of the jar that was expected to end by itself printed, and its exit code. */
  public record Exited(int exitCode, String output) {}

  /**
   * Runs the jar with {@code args} (e.g. a {@code serve} that must refuse to start) and waits for
   * it to exit by itself.
   */
  public static Exited runToExit(Duration timeout, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-jar");
    command.add(jar().toString());
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    scrubEnvironment(builder);
    Process process = builder.start();
    CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> {
      try {
        return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        return "(output unreadable: " + e + ")";
      }
    });
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      throw new IllegalStateException("delayq " + String.join(" ", args) + " did not exit within " + timeout);
    }
    try {
      return new Exited(process.exitValue(), output.get(10, TimeUnit.SECONDS));
    } catch (Exception e) {
      throw new IllegalStateException("cannot read the output of delayq " + String.join(" ", args), e);
    }
  }

  /** The machine's own delayq settings must not leak into a test's server. */
  private static void scrubEnvironment(ProcessBuilder builder) {
    builder.environment().remove("REDIS_URL");
    builder.environment().keySet().removeIf(name -> name.startsWith("DELAYQ_"));
  }

  /** The Redis the suite runs against, or null to let the server embed its own. */
  public static String testRedis() {
    String configured = System.getenv("DELAYQ_TEST_REDIS");
    return configured == null || configured.isBlank() ? null : configured.trim();
  }

  public String baseUrl() {
    return baseUrl;
  }

  public Path dataDir() {
    return dataDir;
  }

  /**
   * The Redis this server uses: the one it was given, or the embedded one it started. For tests
   * that act on the server's queues as another process on the same Redis would.
   */
  public String redisUrl() {
    if (redisArg != null) {
      return redisArg;
    }
    return output.stream()
        .map(EMBEDDED_REDIS::matcher)
        .filter(Matcher::find)
        .map(m -> m.group(1))
        .findFirst()
        .orElseThrow(() -> new IllegalStateException("no Redis URL in the server's output:\n" + String.join("\n", output)));
  }

  /** Everything the server printed so far. */
  public List<String> output() {
    return List.copyOf(output);
  }

  public long pid() {
    return process.pid();
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /** Sends SIGTERM and waits for the exit code. */
  public int terminate(Duration timeout) throws InterruptedException {
    // why: through the handle, not Process.destroy(), which also closes our end of the output pipe
    // and so would lose whatever the server logs while it shuts down.
    process.toHandle().destroy();
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      throw new IllegalStateException("server did not stop within " + timeout + " of SIGTERM; output:\n"
          + String.join("\n", output));
    }
    reader.join(5_000); // so that output() has the last lines too
    return process.exitValue();
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      terminate(Duration.ofSeconds(30));
    }
  }
}
