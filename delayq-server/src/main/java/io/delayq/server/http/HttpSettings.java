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
    List<String> allowedHosts) {

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
  }

  /** Plain HTTP with every limit at its default. */
  public static HttpSettings of(String bind, int port, String token) {
    return new HttpSettings(bind, port, token, DEFAULT_MAX_CONNECTIONS, DEFAULT_HEADER_TIMEOUT, DEFAULT_BODY_TIMEOUT,
        DEFAULT_IDLE_TIMEOUT, DEFAULT_WRITE_TIMEOUT, null, null, List.of());
  }

  public boolean tls() {
    return tlsCertificate != null;
  }
}
