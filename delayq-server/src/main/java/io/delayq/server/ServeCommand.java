package io.delayq.server;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code delayq serve}: the HTTP API, metrics and health, on a given Redis or an embedded one. */
@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    description = {
      "Runs the HTTP API v1, /metrics and /health.",
      "With no Redis configured, starts an embedded redis-server (AOF on, random password, loopback only) with its"
          + " data in --data-dir, writes its URL to <data-dir>/redis-url (mode 0600), and restarts it if it dies."
    })
public final class ServeCommand implements Callable<Integer> {
  private static final Logger log = LoggerFactory.getLogger(ServeCommand.class);
  static final int EXIT_USAGE = 2;
  static final int EXIT_FAILED = 1;
  /** A token file holds one token; anything larger is the wrong file. */
  private static final long MAX_TOKEN_FILE_BYTES = 4096;
  private static final int SHORT_TOKEN = 16;

  @Spec CommandSpec spec;

  @Option(names = "--port", defaultValue = "${env:DELAYQ_PORT:-7070}",
      description = "Port to listen on; 0 picks a free one (env DELAYQ_PORT, default ${DEFAULT-VALUE}).")
  int port;

  @Option(names = "--bind", defaultValue = "${env:DELAYQ_BIND:-127.0.0.1}",
      description = "Address to listen on (env DELAYQ_BIND, default ${DEFAULT-VALUE}). A non-loopback address needs a token.")
  String bind;

  @Option(names = "--redis", defaultValue = "${env:REDIS_URL}",
      description = "Redis or Redis Cluster URL(s), comma-separated (env REDIS_URL). Unset: an embedded Redis.")
  String redisUrl;

  @Option(names = "--token", defaultValue = "${env:DELAYQ_TOKEN}",
      description = "Bearer token every call but /health must carry (env DELAYQ_TOKEN).")
  String token;

  @Option(names = "--token-file", defaultValue = "${env:DELAYQ_TOKEN_FILE}",
      description = "File holding the bearer token (env DELAYQ_TOKEN_FILE).")
  Path tokenFile;

  @Option(names = "--data-dir", defaultValue = "${env:DELAYQ_DATA_DIR:-./data}",
      description = "Where the embedded Redis keeps its AOF and log (env DELAYQ_DATA_DIR, default ${DEFAULT-VALUE});"
          + " created with mode 0700, refused if other users may write it.")
  Path dataDir;

  @Option(names = "--redis-port", defaultValue = "${env:DELAYQ_REDIS_PORT:-0}",
      description = "Port of the embedded Redis on 127.0.0.1; 0 picks a free one (env DELAYQ_REDIS_PORT, default"
          + " ${DEFAULT-VALUE}). Its URL, with the password, is in <data-dir>/redis-url.")
  int redisPort;

  @Override
  public Integer call() {
    PrintWriter err = spec != null ? spec.commandLine().getErr() : new PrintWriter(System.err, true);
    DelayqServer.Settings settings;
    try {
      settings = settings();
    } catch (UsageException e) {
      err.println("delayq serve: " + e.getMessage());
      err.flush();
      return EXIT_USAGE;
    }
    DelayqServer server;
    try {
      server = DelayqServer.start(settings);
    } catch (Exception e) {
      log.debug("start-up failed", e);
      err.println("delayq serve: cannot start: " + e.getMessage());
      err.flush();
      return EXIT_FAILED;
    }
    ShutdownTriggers.install(server);
    server.announceListening();
    server.awaitStopped();
    return server.exitCode();
  }

  /** Checks the options; every refusal says which flag or variable to change, and how. */
  DelayqServer.Settings settings() {
    if (port < 0 || port > 65535) {
      throw new UsageException("--port (DELAYQ_PORT) must be between 0 and 65535; got " + port);
    }
    String bindAddress = bind == null ? "" : bind.trim();
    InetAddress address;
    try {
      address = InetAddress.getByName(bindAddress.isEmpty() ? "127.0.0.1" : bindAddress);
    } catch (UnknownHostException e) {
      throw new UsageException("--bind (DELAYQ_BIND) '" + bind + "' is not an address of this machine: " + e.getMessage());
    }
    String bearer = token();
    if (bearer == null && !address.isLoopbackAddress()) {
      throw new UsageException(
          "refusing to listen on " + bindAddress + " without a token: anyone who can reach that address could"
              + " read, change and delete your jobs. Set a bearer token with --token or DELAYQ_TOKEN (or"
              + " --token-file / DELAYQ_TOKEN_FILE), or listen on loopback only with --bind 127.0.0.1");
    }
    if (bearer != null && bearer.length() < SHORT_TOKEN) {
      log.warn("the bearer token is only {} characters long; use at least {} random characters, e.g. from"
          + " `openssl rand -hex 32`", bearer.length(), SHORT_TOKEN);
    }
    String redis = redisUrl == null || redisUrl.isBlank() ? null : redisUrl.trim();
    String source = redis == null ? null : (System.getenv("REDIS_URL") != null && redis.equals(System.getenv("REDIS_URL").trim()) ? "REDIS_URL" : "--redis");
    if (redisPort < 0 || redisPort > 65535) {
      throw new UsageException("--redis-port (DELAYQ_REDIS_PORT) must be between 0 and 65535 (0: a free port); got "
          + redisPort);
    }
    if (redis != null && redisPort != 0) {
      throw new UsageException("--redis-port (DELAYQ_REDIS_PORT) is the port of the embedded Redis, which is not"
          + " started when " + source + " names a Redis; unset one of them");
    }
    return new DelayqServer.Settings(
        bindAddress.isEmpty() ? "127.0.0.1" : bindAddress, port, redis, source, bearer,
        dataDir == null ? Path.of("data") : dataDir, redisPort);
  }

  /** The token from --token or --token-file, trimmed; null when neither is set. */
  private String token() {
    boolean inline = token != null && !token.isBlank();
    if (inline && tokenFile != null) {
      throw new UsageException(
          "both --token (DELAYQ_TOKEN) and --token-file (DELAYQ_TOKEN_FILE) are set; give one of them");
    }
    String value;
    if (tokenFile != null) {
      value = readTokenFile(tokenFile);
    } else if (inline) {
      value = token.trim();
    } else {
      return null;
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c <= ' ' || c == 0x7f) {
        throw new UsageException(
            "the bearer token holds a space or control character at index " + i + "; use printable characters"
                + " only, e.g. from `openssl rand -hex 32`");
      }
    }
    return value;
  }

  private static String readTokenFile(Path file) {
    try {
      long size = Files.size(file);
      if (size > MAX_TOKEN_FILE_BYTES) {
        throw new UsageException(
            "--token-file (DELAYQ_TOKEN_FILE) " + file + " is " + size + " bytes; it should hold only the token"
                + " (at most " + MAX_TOKEN_FILE_BYTES + " bytes)");
      }
      String value = Files.readString(file, StandardCharsets.UTF_8).trim();
      if (value.isEmpty()) {
        throw new UsageException(
            "--token-file (DELAYQ_TOKEN_FILE) " + file + " is empty; write the token into it, e.g."
                + " `openssl rand -hex 32 > " + file + "`");
      }
      return value;
    } catch (IOException e) {
      throw new UsageException(
          "cannot read --token-file (DELAYQ_TOKEN_FILE) " + file + " (" + e.getClass().getSimpleName() + ": "
              + e.getMessage() + "); check the path and that this user may read it");
    }
  }

  /** A setting that stops the server from starting: exit code 2. */
  static final class UsageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UsageException(String message) {
      super(message);
    }
  }
}
