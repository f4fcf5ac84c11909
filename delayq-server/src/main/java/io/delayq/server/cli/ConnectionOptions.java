package io.delayq.server.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Option;

/**
 * Where a command goes, shared by every command as a picocli mixin: Redis directly ({@code --redis}
 * or {@code REDIS_URL}), else a running {@code delayq serve} ({@code --server}, {@code
 * DELAYQ_SERVER}, default {@value #DEFAULT_SERVER}). An option on the command line wins over the
 * environment: {@code --server} is used even when {@code REDIS_URL} is set.
 */
public final class ConnectionOptions {
  public static final String DEFAULT_SERVER = "http://127.0.0.1:7070";

  @ArgGroup(validate = false, heading = "%nConnection (Redis directly with --redis, else a delayq server):%n", order = 100)
  Target target = new Target();

  /** The options themselves, grouped under their own heading in every command's help. */
  static final class Target {
    @Option(names = "--redis", paramLabel = "URL",
        description = "Talk to this Redis or Redis Cluster directly (env REDIS_URL): redis://[user:password@]host:port,"
            + " rediss:// for TLS, several comma-separated for cluster seeds.")
    String redis;

    @Option(names = "--server", paramLabel = "URL",
        description = "Otherwise, talk to this delayq server over HTTP (env DELAYQ_SERVER, default "
            + DEFAULT_SERVER + ").")
    String server;

    @Option(names = "--token", paramLabel = "TOKEN",
        description = "Bearer token for the server (env DELAYQ_TOKEN).")
    String token;

    @Option(names = "--token-file", paramLabel = "PATH",
        description = "File holding the bearer token (env DELAYQ_TOKEN_FILE).")
    Path tokenFile;
  }

  /** Connects as the options and the environment say. */
  Backend open() {
    return open(System.getenv());
  }

  Backend open(Map<String, String> env) {
    String redis = target.redis;
    String server = target.server;
    if (redis != null && server != null) {
      throw CliException.usage("both --redis and --server were given; pass --redis to talk to Redis directly,"
          + " or --server to go through a delayq server, not both");
    }
    if (server == null) {
      String redisUrl = redis != null ? redis : nonBlank(env.get("REDIS_URL"));
      if (redisUrl != null) {
        if (redisUrl.isBlank()) {
          throw CliException.usage("--redis is empty; give a URL such as redis://127.0.0.1:6379");
        }
        return DirectBackend.connect(redisUrl.strip());
      }
    }
    String url = server != null ? server : nonBlank(env.get("DELAYQ_SERVER"));
    return new HttpBackend(url != null ? url : DEFAULT_SERVER, token(env));
  }

  private String token(Map<String, String> env) {
    String token = target.token;
    Path tokenFile = target.tokenFile;
    if (token != null && tokenFile != null) {
      throw CliException.usage("both --token and --token-file were given; pass one of them");
    }
    if (token != null) {
      return token.strip();
    }
    if (tokenFile != null) {
      return readToken(tokenFile, "--token-file");
    }
    String fromEnv = nonBlank(env.get("DELAYQ_TOKEN"));
    if (fromEnv != null) {
      return fromEnv.strip();
    }
    String fileFromEnv = nonBlank(env.get("DELAYQ_TOKEN_FILE"));
    return fileFromEnv == null ? null : readToken(Path.of(fileFromEnv), "DELAYQ_TOKEN_FILE");
  }

  private static String readToken(Path file, String source) {
    try {
      String text = Files.readString(file, StandardCharsets.UTF_8).strip();
      if (text.isEmpty()) {
        throw CliException.usage(source + " " + file + " is empty; put the server's token in it");
      }
      return text;
    } catch (NoSuchFileException e) {
      throw CliException.usage(source + " " + file + " does not exist; give the file that holds the server's token");
    } catch (IOException e) {
      throw CliException.usage("cannot read " + source + " " + file + ": " + e.getMessage());
    }
  }

  private static String nonBlank(String value) {
    return value == null || value.isBlank() ? null : value;
  }
}
