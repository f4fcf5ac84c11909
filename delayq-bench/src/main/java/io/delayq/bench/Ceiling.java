package io.delayq.bench;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The ceiling: what the Redis under test does with bare {@code ZADD}s from {@code redis-benchmark}
 * (50 clients; and with 64 commands pipelined per client), the most any sorted-set queue can
 * enqueue on this machine. Not a queue: it appears in the enqueue scenario only.
 */
final class Ceiling {
  static final String NAME = "redis-benchmark ZADD (ceiling)";
  static final int CLIENTS = 50;
  static final int PIPELINE = 64;
  /** Random members over this many values, so the sorted set grows as a queue's would. */
  private static final int KEYSPACE = 1_000_000;
  private static final long TIMEOUT_SECONDS = 300;

  private Ceiling() {}

  /**
   * The measured ceiling, or why there is none.
   *
   * @param zaddPerSecond ZADDs/s with 50 clients, one command at a time each
   * @param pipelinedZaddPerSecond ZADDs/s with 50 clients pipelining 64 each
   * @param unavailable why it was not measured, or {@code null}
   */
  record Result(double zaddPerSecond, double pipelinedZaddPerSecond, String tool, String unavailable) {
    boolean available() {
      return unavailable == null;
    }
  }

  /** Runs redis-benchmark against the Redis on {@code port}: {@code requests} plain, then {@code pipelinedRequests} pipelined. */
  static Result measure(Path redisServer, int port, int requests, int pipelinedRequests) {
    Optional<Path> tool = find(redisServer);
    if (tool.isEmpty()) {
      return new Result(Double.NaN, Double.NaN, null,
          "not available: no redis-benchmark next to " + redisServer + " nor on PATH");
    }
    try {
      double plain = run(tool.get(), port, requests, 1);
      double pipelined = run(tool.get(), port, pipelinedRequests, PIPELINE);
      return new Result(plain, pipelined, tool.get().toString(), null);
    } catch (IOException | RuntimeException e) {
      return new Result(Double.NaN, Double.NaN, tool.get().toString(), "not available: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Result(Double.NaN, Double.NaN, tool.get().toString(), "not available: interrupted");
    }
  }

  /** The redis-benchmark of the same installation as the server, else the first on PATH. */
  private static Optional<Path> find(Path redisServer) {
    Path sibling = redisServer.resolveSibling("redis-benchmark");
    if (Files.isExecutable(sibling)) {
      return Optional.of(sibling);
    }
    String path = Objects.requireNonNullElse(System.getenv("PATH"), "");
    return Stream.of(path.split(File.pathSeparator))
        .filter(dir -> !dir.isBlank())
        .map(dir -> Path.of(dir, "redis-benchmark"))
        .filter(Files::isExecutable)
        .findFirst();
  }

  private static double run(Path tool, int port, int requests, int pipeline)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(
        tool.toString(), "-h", "127.0.0.1", "-p", Integer.toString(port),
        "-t", "zadd", "-n", Integer.toString(requests), "-c", Integer.toString(CLIENTS),
        "-r", Integer.toString(KEYSPACE), "--csv"));
    if (pipeline > 1) {
      command.addAll(List.of("-P", Integer.toString(pipeline)));
    }
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new IllegalStateException("redis-benchmark did not finish within " + TIMEOUT_SECONDS + " s");
    }
    if (process.exitValue() != 0) {
      throw new IllegalStateException("redis-benchmark exited with " + process.exitValue() + ": " + output.trim());
    }
    return parseRequestsPerSecond(output);
  }

  /** The rps field of the {@code "ZADD"} line of {@code --csv} output (Redis 6 and 7 formats). */
  static double parseRequestsPerSecond(String csv) {
    for (String line : csv.split("\r?\n")) {
      String[] fields = line.split(",");
      if (fields.length >= 2 && fields[0].replace("\"", "").trim().equals("ZADD")) {
        return Double.parseDouble(fields[1].replace("\"", "").trim());
      }
    }
    throw new IllegalStateException("no ZADD line in redis-benchmark output: " + csv.trim());
  }
}
