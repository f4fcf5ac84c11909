package io.delayq.server;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import io.delayq.server.http.HttpSettings;
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
      "Runs the HTTP API v1, the web dashboard (at /), /metrics and /health.",
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

  @Option(names = "--rabbitmq", defaultValue = "${env:DELAYQ_RABBITMQ_URL}",
      description = "RabbitMQ URL (amqp:// or amqps://, user, password and vhost in it) for queues forwarded to"
          + " RabbitMQ (env DELAYQ_RABBITMQ_URL). Unset: such queues report that the server has no RabbitMQ.")
  String rabbitmqUrl;

  @Option(names = "--token", defaultValue = "${env:DELAYQ_TOKEN}",
      description = "Bearer token every call but /health must carry (env DELAYQ_TOKEN).")
  String token;

  @Option(names = "--token-file", defaultValue = "${env:DELAYQ_TOKEN_FILE}",
      description = "File holding the bearer token (env DELAYQ_TOKEN_FILE).")
  Path tokenFile;

  @Option(names = "--read-only-token", defaultValue = "${env:DELAYQ_READ_ONLY_TOKEN}",
      description = "A second token that allows the dashboard and the API's GET calls only (env"
          + " DELAYQ_READ_ONLY_TOKEN); needs --token and must differ from it.")
  String readOnlyToken;

  @Option(names = "--read-only-token-file", defaultValue = "${env:DELAYQ_READ_ONLY_TOKEN_FILE}",
      description = "File holding the read-only token (env DELAYQ_READ_ONLY_TOKEN_FILE).")
  Path readOnlyTokenFile;

  @Option(names = "--base-path", defaultValue = "${env:DELAYQ_BASE_PATH}",
      description = "Path prefix the server is reached under behind a reverse proxy, e.g. /delayq (env"
          + " DELAYQ_BASE_PATH): the dashboard's links start with it, and requests that arrive with it are served"
          + " with it stripped. A proxy may instead send X-Forwarded-Prefix per request.")
  String basePath;

  @Option(names = "--data-dir", defaultValue = "${env:DELAYQ_DATA_DIR:-./data}",
      description = "Where the embedded Redis keeps its AOF and log (env DELAYQ_DATA_DIR, default ${DEFAULT-VALUE});"
          + " created with mode 0700, refused if other users may write it.")
  Path dataDir;

  @Option(names = "--tls-cert", defaultValue = "${env:DELAYQ_TLS_CERT}",
      description = "PEM certificate chain: serve HTTPS instead of HTTP (env DELAYQ_TLS_CERT); needs --tls-key.")
  Path tlsCertificate;

  @Option(names = "--tls-key", defaultValue = "${env:DELAYQ_TLS_KEY}",
      description = "PEM (PKCS#8, unencrypted) private key of --tls-cert (env DELAYQ_TLS_KEY).")
  Path tlsKey;

  @Option(names = "--max-connections", defaultValue = "${env:DELAYQ_MAX_CONNECTIONS:-4096}",
      description = "Open connections beyond which new ones are closed at once (env DELAYQ_MAX_CONNECTIONS, default ${DEFAULT-VALUE}).")
  int maxConnections;

  @Option(names = "--allowed-host", split = ",", defaultValue = "${env:DELAYQ_ALLOWED_HOSTS}",
      description = "Host names this server answers to besides its bind address and loopback names, when it has no"
          + " token (comma-separated; env DELAYQ_ALLOWED_HOSTS). Other Host headers are refused (DNS rebinding).")
  List<String> allowedHosts;

  @Option(names = "--log-level", defaultValue = "${env:DELAYQ_LOG_LEVEL:-info}",
      description = "Level of delayq's log, including the access log: error, warn, info, debug or trace"
          + " (env DELAYQ_LOG_LEVEL, default ${DEFAULT-VALUE}).")
  String logLevel;

  @Option(names = "--max-partitions", defaultValue = "${env:DELAYQ_MAX_PARTITIONS:-" + DelayqServer.DEFAULT_MAX_PARTITIONS + "}",
      description = "Most partitions a queue created or configured over HTTP may have, 1 to 1024"
          + " (env DELAYQ_MAX_PARTITIONS, default ${DEFAULT-VALUE}). Each partition costs Redis calls on every claim and stats.")
  int maxPartitions;

  @Option(names = "--redis-port", defaultValue = "${env:DELAYQ_REDIS_PORT:-0}",
      description = "Port of the embedded Redis on 127.0.0.1; 0 picks a free one (env DELAYQ_REDIS_PORT, default"
          + " ${DEFAULT-VALUE}). Its URL, with the password, is in <data-dir>/redis-url.")
  int redisPort;

  @Override
  public Integer call() {
    PrintWriter err = spec != null ? spec.commandLine().getErr() : new PrintWriter(System.err, true);
    DelayqServer.Settings settings;
    try {
      LogLevel.apply(logLevel);
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
    String bearer = token("--token (DELAYQ_TOKEN)", token, "--token-file (DELAYQ_TOKEN_FILE)", tokenFile,
        "the bearer token");
    String readOnly = token("--read-only-token (DELAYQ_READ_ONLY_TOKEN)", readOnlyToken,
        "--read-only-token-file (DELAYQ_READ_ONLY_TOKEN_FILE)", readOnlyTokenFile, "the read-only token");
    if (readOnly != null && bearer == null) {
      throw new UsageException("a read-only token (--read-only-token / DELAYQ_READ_ONLY_TOKEN) needs a full token too:"
          + " without --token everybody has full access, so a read-only token would restrict nobody; set --token"
          + " (DELAYQ_TOKEN) as well, or drop the read-only token");
    }
    if (readOnly != null && readOnly.equals(bearer)) {
      throw new UsageException("the read-only token equals the full token, which would make every read-only user a"
          + " full one; give --read-only-token a different value, e.g. from `openssl rand -hex 32`");
    }
    String prefix = basePath == null || basePath.isBlank() ? null : basePath.trim();
    if (prefix != null && !io.delayq.server.web.Prefix.valid(prefix)) {
      throw new UsageException("--base-path (DELAYQ_BASE_PATH) '" + prefix + "' is not a path prefix: give one or"
          + " more segments of letters, digits and . _ ~ -, each after a '/', such as /delayq (no trailing '/',"
          + " no '.' or '..' segment)");
    }
    String shadowed = io.delayq.server.web.Prefix.shadowedApiPath(prefix);
    if (shadowed != null) {
      throw new UsageException("--base-path (DELAYQ_BASE_PATH) '" + prefix + "' starts with the API path " + shadowed
          + ": requests under it would be served as dashboard pages, not by the API (/v1, /health, /metrics and"
          + " /openapi.json stay where they are); choose another prefix, such as /delayq");
    }
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
    if (maxConnections < 1) {
      throw new UsageException("--max-connections (DELAYQ_MAX_CONNECTIONS) must be at least 1; got " + maxConnections);
    }
    if ((tlsCertificate == null) != (tlsKey == null)) {
      throw new UsageException("--tls-cert (DELAYQ_TLS_CERT) and --tls-key (DELAYQ_TLS_KEY) go together; give both"
          + " to serve HTTPS, or neither");
    }
    for (Path file : new Path[] {tlsCertificate, tlsKey}) {
      if (file != null && !Files.isReadable(file)) {
        throw new UsageException("cannot read " + file + " (--tls-cert / --tls-key); check the path and that this user"
            + " may read it");
      }
    }
    if (maxPartitions < 1 || maxPartitions > DelayqServer.PARTITIONS_LIMIT) {
      throw new UsageException("--max-partitions (DELAYQ_MAX_PARTITIONS) must be between 1 and "
          + DelayqServer.PARTITIONS_LIMIT + "; got " + maxPartitions);
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
    String rabbit = rabbitmqUrl == null || rabbitmqUrl.isBlank() ? null : rabbitmqUrl.trim();
    if (rabbit != null) {
      DelayqServer.rabbitConnectionFactory(rabbit);
    }
    String listenOn = bindAddress.isEmpty() ? "127.0.0.1" : bindAddress;
    HttpSettings http = new HttpSettings(listenOn, port, bearer, maxConnections, HttpSettings.DEFAULT_HEADER_TIMEOUT,
        HttpSettings.DEFAULT_BODY_TIMEOUT, HttpSettings.DEFAULT_IDLE_TIMEOUT, HttpSettings.DEFAULT_WRITE_TIMEOUT,
        tlsCertificate, tlsKey, allowedHosts == null ? List.of() : allowedHosts.stream().map(String::trim)
            .filter(h -> !h.isEmpty()).toList(), readOnly, prefix);
    return new DelayqServer.Settings(listenOn, port, redis, source, bearer,
        dataDir == null ? Path.of("data") : dataDir, redisPort, maxPartitions, http, rabbit);
  }

  /** A token from its flag or its file, trimmed; null when neither is set. */
  private static String token(String flag, String inlineValue, String fileFlag, Path file, String what) {
    boolean inline = inlineValue != null && !inlineValue.isBlank();
    if (inline && file != null) {
      throw new UsageException("both " + flag + " and " + fileFlag + " are set; give one of them");
    }
    String value;
    if (file != null) {
      value = readTokenFile(fileFlag, file);
    } else if (inline) {
      value = inlineValue.trim();
    } else {
      return null;
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c <= ' ' || c == 0x7f) {
        throw new UsageException(
            what + " holds a space or control character at index " + i + "; use printable characters"
                + " only, e.g. from `openssl rand -hex 32`");
      }
    }
    return value;
  }

  private static String readTokenFile(String flag, Path file) {
    try {
      long size = Files.size(file);
      if (size > MAX_TOKEN_FILE_BYTES) {
        throw new UsageException(
            flag + " " + file + " is " + size + " bytes; it should hold only the token"
                + " (at most " + MAX_TOKEN_FILE_BYTES + " bytes)");
      }
      String value = Files.readString(file, StandardCharsets.UTF_8).trim();
      if (value.isEmpty()) {
        throw new UsageException(
            flag + " " + file + " is empty; write the token into it, e.g."
                + " `openssl rand -hex 32 > " + file + "`");
      }
      return value;
    } catch (IOException e) {
      throw new UsageException(
          "cannot read " + flag + " " + file + " (" + e.getClass().getSimpleName() + ": "
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
