package io.delayq.server.http;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** Checks {@code Authorization: Bearer <token>} in constant time; with no token configured, lets everything in. */
final class BearerAuth {
  private final byte[] expectedDigest;

  /** @param token the token calls must carry, or null for none */
  BearerAuth(String token) {
    this.expectedDigest = token == null ? null : sha256(token);
  }

  boolean enabled() {
    return expectedDigest != null;
  }

  /** @throws ApiException 401 when a token is configured and the header does not carry it */
  void check(String authorization) {
    if (expectedDigest == null) {
      return;
    }
    if (authorization == null || authorization.isBlank()) {
      throw ApiException.unauthorized(
          "this server needs a token: send the header Authorization: Bearer <token>");
    }
    String[] parts = authorization.trim().split("\\s+", 2);
    if (parts.length != 2 || !parts[0].equalsIgnoreCase("Bearer")) {
      throw ApiException.unauthorized(
          "the Authorization header must use the Bearer scheme: Authorization: Bearer <token>");
    }
    // why: comparing digests of equal length, with MessageDigest.isEqual, takes the same time
    // whatever the given token is, so response times reveal neither its content nor its length.
    if (!MessageDigest.isEqual(expectedDigest, sha256(parts[1].trim()))) {
      throw ApiException.unauthorized("the bearer token is wrong; use the token the server was started with");
    }
  }

  private static byte[] sha256(String text) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
