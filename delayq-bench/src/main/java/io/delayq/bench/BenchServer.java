package io.delayq.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The real {@code delayq-server.jar} of the HTTP scenario, run as its own JVM the way it runs in
 * production: {@code java -jar delayq-server.jar serve --port 0 --redis <the bench's Redis>}, every
 * other setting at its default (the access log included). Its output goes to a file in a temp dir
 * of its own, so nothing the server prints can stall it; stopped with SIGTERM, and the temp dir
 * deleted.
 */
final class BenchServer implements AutoCloseable {
  /** The line the server logs once it accepts requests. */
  private static final Pattern LISTENING = Pattern.compile("listening on http://([^:/\\s]+):(\\d+)");
  private static final Duration STARTUP = Duration.ofSeconds(90);
  private static final Duration STOP = Duration.ofSeconds(30);
  private static final String JAR_NAME = "delayq-server.jar";
  private static final String LOG_NAME = "server.log";
  /** TCP state ESTABLISHED in {@code /proc/net/tcp}. */
  private static final String ESTABLISHED = "01";

  private final Process process;
  private final Path dir;
  private final Path log;
  private final String host;
  private final int port;
  private final Path jar;
  /** Kills the server if the benchmark's JVM ends without closing it (Ctrl-C). */
  private final Thread orphanGuard;

  private BenchServer(Process process, Path dir, String host, int port, Path jar) {
    this.process = process;
    this.dir = dir;
    this.log = dir.resolve(LOG_NAME);
    this.host = host;
    this.port = port;
    this.jar = jar;
    this.orphanGuard = new Thread(process::destroyForcibly, "bench-server-orphan-guard");
    Runtime.getRuntime().addShutdownHook(orphanGuard);
  }

  /**
   * Starts {@code jar} (or, when null, the one {@link #defaultJar()} finds) on {@code redisUri},
   * with its data dir and log under a new temp dir, and waits until it listens.
   */
  static BenchServer start(Path jar, String redisUri) throws InterruptedException {
    Path serverJar = jar != null ? jar : defaultJar();
    if (!Files.isRegularFile(serverJar)) {
      throw new IllegalStateException(serverJar + " does not exist: build it with `mvn -q -DskipTests package`"
          + " from the repository root, or name the jar with --server-jar=PATH");
    }
    try {
      Path dir = Files.createTempDirectory("delayq-bench-server-");
      Path log = dir.resolve(LOG_NAME);
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      List<String> command = List.of(java, "-jar", serverJar.toString(), "serve", "--port", "0", "--redis", redisUri,
          "--data-dir", dir.resolve("data").toString());
      ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
          .redirectOutput(log.toFile());
      // why: the machine's own delayq settings must not change what is measured
      builder.environment().remove("REDIS_URL");
      builder.environment().keySet().removeIf(name -> name.startsWith("DELAYQ_"));
      Process process = builder.start();
      try {
        return awaitListening(process, dir, log, serverJar);
      } catch (RuntimeException | InterruptedException e) {
        process.destroyForcibly();
        throw e;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + serverJar, e);
    }
  }

  /** Polls the server's output for the line saying it listens; the IOException is reading that output. */
  private static BenchServer awaitListening(Process process, Path dir, Path log, Path serverJar)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + STARTUP.toNanos();
    while (System.nanoTime() < deadline) {
      Matcher m = LISTENING.matcher(Files.readString(log, StandardCharsets.UTF_8));
      if (m.find()) {
        return new BenchServer(process, dir, m.group(1), Integer.parseInt(m.group(2)), serverJar);
      }
      if (!process.isAlive()) {
        throw new IllegalStateException("delayq-server exited with " + process.exitValue()
            + " before listening; its output (" + log + "):\n" + Files.readString(log, StandardCharsets.UTF_8));
      }
      Thread.sleep(50);
    }
    throw new IllegalStateException("delayq-server did not listen within " + STARTUP.toSeconds()
        + " s; its output (" + log + "):\n" + Files.readString(log, StandardCharsets.UTF_8));
  }

  /**
   * {@code delayq-server/target/delayq-server.jar} of the checkout this benchmark was built in
   * (found from the bench's own classes or jar, which sit in {@code delayq-bench/target}), else
   * that path under the current directory.
   */
  static Path defaultJar() {
    Path relative = Path.of("delayq-server", "target", JAR_NAME);
    try {
      Path code = Path.of(BenchServer.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      // .../delayq-bench/target/classes or .../delayq-bench/target/delayq-bench.jar
      Path checkout = code.getParent() == null || code.getParent().getParent() == null ? null
          : code.getParent().getParent().getParent();
      if (checkout != null && Files.isRegularFile(checkout.resolve(relative))) {
        return checkout.resolve(relative);
      }
    } catch (URISyntaxException | RuntimeException e) {
      // fall back to the current directory
    }
    return relative.toAbsolutePath();
  }

  String host() {
    return host;
  }

  int port() {
    return port;
  }

  long pid() {
    return process.pid();
  }

  Path jar() {
    return jar;
  }

  String baseUrl() {
    return "http://" + host + ":" + port;
  }

  /**
   * TCP connections in state ESTABLISHED whose local end is the server's address and port, as {@code
   * ss -tn state established '( sport = :PORT )'} lists them: every client connection the server
   * holds right now. -1 when {@code /proc/net/tcp} cannot be read (not Linux) or the server is not on
   * IPv4.
   */
  int establishedConnections() {
    // A line is "  12: 0100007F:1F90 0100007F:C350 01 ...": slot, local address:port, remote, state. The
    // address is in the kernel's (little-endian) byte order; a Java server's socket is usually IPv6 with
    // the IPv4 address mapped into it (::ffff:127.0.0.1), which /proc/net/tcp6 lists.
    String ipv4;
    try {
      byte[] address = InetAddress.getByName(host).getAddress();
      if (address.length != 4) {
        return -1;
      }
      ipv4 = String.format(Locale.ROOT, "%02X%02X%02X%02X", address[3], address[2], address[1], address[0]);
    } catch (UnknownHostException e) {
      return -1;
    }
    String port = String.format(Locale.ROOT, ":%04X", this.port);
    Set<String> local = Set.of(ipv4 + port, "0000000000000000FFFF0000" + ipv4 + port);
    int count = 0;
    boolean read = false;
    for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
      try {
        for (String line : Files.readAllLines(Path.of(table), StandardCharsets.US_ASCII)) {
          String[] fields = line.trim().split("\\s+");
          // why: the address too, not just the port: another program's connection from another address may
          // have this port as its own
          if (fields.length > 3 && local.contains(fields[1]) && fields[3].equals(ESTABLISHED)) {
            count++;
          }
        }
        read = true;
      } catch (IOException e) {
        // that table is not there; the other may be
      }
    }
    return read ? count : -1;
  }

  /** The last lines of the server's output, for a failure message. */
  String tail(int lines) {
    try {
      List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(cannot read " + log + ": " + e.getMessage() + ")";
    }
  }

  /** SIGTERM, then up to 30 s for it to exit (after that it is killed); then its temp dir goes. */
  @Override
  public void close() {
    try {
      Runtime.getRuntime().removeShutdownHook(orphanGuard);
    } catch (IllegalStateException e) {
      // the JVM is shutting down already, and the guard with it
    }
    process.toHandle().destroy();
    try {
      if (!process.waitFor(STOP.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        process.waitFor(STOP.toMillis(), TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(file -> file.toFile().delete());
    } catch (IOException e) {
      // a temp dir left behind is harmless
    }
  }
}
