package io.delayq.server.http;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * How the HTTP server listens and how long and how much it lets each client take.
 *
 * @param bind the address to listen on
 * @param port the port; 0 picks a free one
 * @param token the bearer token every call but the health checks must carry, or null for none
 * @param maxConnections open connections beyond which new ones are closed at once
 * @param headerTimeout how long a client may take to send a request's line and headers, from its first byte
 * @param bodyTimeout how long a client may take to send a request's body, from the end of its headers
 * @param idleTimeout how long a keep-alive connection may sit with no request in flight
 * @param writeTimeout how long writing one answer may take before the connection is closed
 * @param tlsCertificate a PEM certificate chain to serve HTTPS with, or null for plain HTTP
 * @param tlsKey the PEM (PKCS#8) private key of {@code tlsCertificate}
 * @param allowedHosts extra {@code Host} header values accepted besides the bind address and loopback names
 * @param readOnlyToken a second token that allows the dashboard and the API's GET routes only, or null for
 *     none; needs {@link #token} and must differ from it
 * @param basePath the path prefix the server is reached under behind a reverse proxy (e.g. {@code /delayq}),
 *     or null for none: links the dashboard renders start with it, and requests that arrive with it are
 *     served with it stripped
 */
public record HttpSettings(
    String bind,
    int port,
    String token,
    int maxConnections,
    Duration headerTimeout,
    Duration bodyTimeout,
    Duration idleTimeout,
    Duration writeTimeout,
    Path tlsCertificate,
    Path tlsKey,
    List<String> allowedHosts,
    String readOnlyToken,
    String basePath) {

  public static final int DEFAULT_MAX_CONNECTIONS = 4096;
  public static final Duration DEFAULT_HEADER_TIMEOUT = Duration.ofSeconds(10);
  public static final Duration DEFAULT_BODY_TIMEOUT = Duration.ofSeconds(60);
  public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(120);
  public static final Duration DEFAULT_WRITE_TIMEOUT = Duration.ofSeconds(30);

  public HttpSettings {
    Objects.requireNonNull(bind, "bind");
    if ((tlsCertificate == null) != (tlsKey == null)) {
      throw new IllegalArgumentException("a TLS certificate needs its key, and a key its certificate");
    }
    allowedHosts = allowedHosts == null ? List.of() : List.copyOf(allowedHosts);
    if (readOnlyToken != null && token == null) {
      throw new IllegalArgumentException("a read-only token needs a full token too: without one, everybody has full"
          + " access and a read-only token would restrict nobody; set the token as well");
    }
    if (readOnlyToken != null && readOnlyToken.equals(token)) {
      throw new IllegalArgumentException("the read-only token equals the full token; give it a different value");
    }
    if (basePath != null && !io.delayq.server.web.Prefix.valid(basePath)) {
      throw new IllegalArgumentException("base path '" + PathCodec.abbreviate(basePath) + "' is not a path prefix:"
          + " give one or more segments of letters, digits and . _ ~ -, each after a '/', such as /delayq"
          + " (not '/' alone, no trailing '/', no '.' or '..' segment)");
    }
    String shadowed = io.delayq.server.web.Prefix.shadowedApiPath(basePath);
    if (shadowed != null) {
      throw new IllegalArgumentException("base path '" + PathCodec.abbreviate(basePath) + "' starts with the API path "
          + shadowed + ", which would then be served as dashboard pages; choose another prefix, such as /delayq");
    }
  }

  /** The settings as before the read-only token and the base path (both none). */
  public HttpSettings(String bind, int port, String token, int maxConnections, Duration headerTimeout,
      Duration bodyTimeout, Duration idleTimeout, Duration writeTimeout, Path tlsCertificate, Path tlsKey,
      List<String> allowedHosts) {
    this(bind, port, token, maxConnections, headerTimeout, bodyTimeout, idleTimeout, writeTimeout, tlsCertificate,
        tlsKey, allowedHosts, null, null);
  }

  /** These settings with a read-only token (null: none). */
  public HttpSettings withReadOnlyToken(String readOnly) {
    return new HttpSettings(bind, port, token, maxConnections, headerTimeout, bodyTimeout, idleTimeout, writeTimeout,
        tlsCertificate, tlsKey, allowedHosts, readOnly, basePath);
  }

  /** These settings with a base path (null: none). */
  public HttpSettings withBasePath(String prefix) {
    return new HttpSettings(bind, port, token, maxConnections, headerTimeout, bodyTimeout, idleTimeout, writeTimeout,
        tlsCertificate, tlsKey, allowedHosts, readOnlyToken, prefix);
  }

  /** Plain HTTP with every limit at its default. */
  public static HttpSettings of(String bind, int port, String token) {
    return new HttpSettings(bind, port, token, DEFAULT_MAX_CONNECTIONS, DEFAULT_HEADER_TIMEOUT, DEFAULT_BODY_TIMEOUT,
        DEFAULT_IDLE_TIMEOUT, DEFAULT_WRITE_TIMEOUT, null, null, List.of(), null, null);
  }

  public boolean tls() {
    return tlsCertificate != null;
  }
}
