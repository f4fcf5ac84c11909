package io.delayq.bench;

import io.delayq.embedded.RedisServerProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one Redis every contender runs against: a {@code redis-server} child process on a free port,
 * with no persistence ({@code save ""}, no AOF) and {@code maxmemory-policy noeviction}, plus a
 * connection of the benchmark's own for {@code INFO} and {@code FLUSHALL}.
 */
final class BenchRedis implements RedisTarget, AutoCloseable {
  /**
   * Config lines beyond {@link RedisServerProcess}'s own defaults ({@code save ""}, {@code appendonly no}),
   * shared with the cluster scenario's nodes so that both run the same configuration.
   */
  static final Map<String, String> SETTINGS = Map.of("maxmemory-policy", "noeviction");
  private static final Pattern VERSION = Pattern.compile("v=(\\d+)\\.(\\d+)\\.(\\d+)");
  /** FLUSHALL of ten million jobs takes seconds; the probe must wait for it. */
  private static final Duration PROBE_TIMEOUT = Duration.ofMinutes(5);

  private final RedisServerProcess server;
  private final Path binary;
  private final String binaryChoice;
  private final RedisClient client;
  private final StatefulRedisConnection<String, String> probe;

  private BenchRedis(RedisServerProcess server, Path binary, String binaryChoice) {
    this.server = server;
    this.binary = binary;
    this.binaryChoice = binaryChoice;
    this.client = RedisClient.create();
    RedisURI uri = RedisURI.create(server.uri());
    uri.setTimeout(PROBE_TIMEOUT);
    this.probe = client.connect(uri);
  }

  /** Starts the machine's redis-server when it is version 7 or later, else the bundled one. */
  static BenchRedis start() {
    Optional<Path> machine = RedisServerProcess.machineBinary();
    Path binary;
    String choice;
    if (machine.isPresent() && majorVersion(RedisServerProcess.version(machine.get())) >= 7) {
      binary = machine.get();
      choice = "the machine's redis-server";
    } else {
      binary = RedisServerProcess.bundledBinary();
      choice = machine.isPresent()
          ? "the bundled redis-server (the machine's " + machine.get() + " is older than 7)"
          : "the bundled redis-server (none on PATH)";
    }
    RedisServerProcess.Builder builder = RedisServerProcess.builder().binary(binary);
    SETTINGS.forEach(builder::setting);
    RedisServerProcess server = builder.start();
    try {
      return new BenchRedis(server, binary, choice);
    } catch (RuntimeException e) {
      server.close();
      throw e;
    }
  }

  static int majorVersion(String versionText) {
    Matcher m = VERSION.matcher(versionText);
    return m.find() ? Integer.parseInt(m.group(1)) : 0;
  }

  @Override
  public String uri() {
    return server.uri();
  }

  int port() {
    return server.port();
  }

  Path binary() {
    return binary;
  }

  /** Which binary was chosen and why, for the report. */
  String binaryChoice() {
    return binaryChoice;
  }

  /** {@code redis_version} as the server reports it. */
  String version() {
    for (String line : probe.sync().info("server").split("\r?\n")) {
      if (line.startsWith("redis_version:")) {
        return line.substring("redis_version:".length()).trim();
      }
    }
    return "unknown";
  }

  /** Deletes every key, synchronously, so the next run starts from an empty server. */
  @Override
  public void flushAll() {
    probe.sync().flushall();
  }

  @Override
  public RedisStats stats() {
    return RedisStats.parse(probe.sync().info("all"));
  }

  /** Names of the keys matching the glob {@code pattern}, found with SCAN (never KEYS). */
  List<String> keys(String pattern) {
    List<String> keys = new ArrayList<>();
    ScanArgs args = ScanArgs.Builder.matches(pattern).limit(1_000);
    ScanCursor cursor = ScanCursor.INITIAL;
    do {
      KeyScanCursor<String> page = probe.sync().scan(cursor, args);
      keys.addAll(page.getKeys());
      cursor = page;
    } while (!cursor.isFinished());
    return keys;
  }

  /**
   * {@code MEMORY USAGE key SAMPLES 0}: the bytes the key and its value take, every element counted
   * rather than a sample; 0 when there is no such key.
   */
  long memoryUsage(String key) {
    CommandArgs<String, String> args =
        new CommandArgs<>(StringCodec.UTF8).add("USAGE").addKey(key).add("SAMPLES").add(0);
    Long bytes = probe.sync().dispatch(CommandType.MEMORY, new IntegerOutput<>(StringCodec.UTF8), args);
    return bytes == null ? 0 : bytes;
  }

  /** {@code SCARD}: members of the set at {@code key}. */
  long setSize(String key) {
    return probe.sync().scard(key);
  }

  /** {@code HLEN}: fields of the hash at {@code key}. */
  long hashSize(String key) {
    return probe.sync().hlen(key);
  }

  @Override
  public void close() {
    try {
      probe.close();
      client.shutdown(0, 2, TimeUnit.SECONDS);
    } finally {
      server.close();
    }
  }
}
