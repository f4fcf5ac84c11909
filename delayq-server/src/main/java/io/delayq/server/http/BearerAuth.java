package io.delayq.server.http;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Checks {@code Authorization: Bearer <token>} in constant time; with no token configured, lets
 * everything in. A read-only token, when configured, is accepted on GET (and HEAD) calls only.
 */
final class BearerAuth {
  private final byte[] expectedDigest;
  private final byte[] readOnlyDigest;

  /** @param token the token calls must carry, or null for none */
  BearerAuth(String token) {
    this(token, null);
  }

  /** @param readOnly a token that allows GET calls only, or null for none */
  BearerAuth(String token, String readOnly) {
    this.expectedDigest = token == null ? null : sha256(token);
    this.readOnlyDigest = readOnly == null ? null : sha256(readOnly);
  }

  boolean enabled() {
    return expectedDigest != null;
  }

  /** @throws ApiException 401 when a token is configured and the header does not carry it */
  void check(String authorization) {
    check(authorization, "POST");
  }

  /**
   * @throws ApiException 401 when a token is configured and the header carries neither it nor
   *     (for a GET) the read-only token; 403 for the read-only token on any other method
   */
  void check(String authorization, String method) {
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
    byte[] given = sha256(parts[1].trim());
    boolean full = MessageDigest.isEqual(expectedDigest, given);
    boolean readOnly = readOnlyDigest != null && MessageDigest.isEqual(readOnlyDigest, given);
    if (readOnly && !full) {
      if (method.equals("GET") || method.equals("HEAD")) {
        return;
      }
      throw ApiException.forbidden("the bearer token is read-only: it allows GET calls only; " + method
          + " needs the full token (--token)");
    }
    if (!full) {
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
