package io.delayq.server.web;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Dashboard sessions, kept in a signed cookie and nowhere else, so that every server instance with
 * the same token accepts them and no state is shared.
 *
 * <p>The cookie {@value #COOKIE} is {@code base64url(payload).base64url(HMAC-SHA256(key, payload))}
 * with the payload {@code v1|<role>|<issued-at s>|<expires-at s>|<fingerprint>}. The key is
 * {@code HMAC-SHA256(full token, "delayq dashboard session v1")}: a new full token ends every session.
 * The fingerprint is a keyed hash of the token the user logged in with, so a new read-only token
 * ends the read-only sessions. Signatures and fingerprints are compared in constant time.
 */
final class Sessions {
  static final String COOKIE = "delayq_session";
  static final Duration LIFETIME = Duration.ofHours(12);
  private static final String VERSION = "v1";
  private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
  private static final Base64.Decoder B64_DECODE = Base64.getUrlDecoder();
  /** Longer cookie values are not one of ours; they are refused before any hashing. */
  private static final int MAX_COOKIE_CHARS = 512;

  /** A valid session: who, and until when. */
  record Session(Role role, long issuedAtSeconds, long expiresAtSeconds) {}

  private final byte[] key;
  private final byte[] fullTokenDigest;
  private final byte[] readOnlyTokenDigest;
  private final byte[] fullFingerprint;
  private final byte[] readOnlyFingerprint;
  private final Clock clock;

  /**
   * @param fullToken the server's token (not null)
   * @param readOnlyToken the read-only token, or null for none
   */
  Sessions(String fullToken, String readOnlyToken, Clock clock) {
    this.key = hmac(fullToken.getBytes(StandardCharsets.UTF_8), "delayq dashboard session v1");
    this.fullTokenDigest = sha256(fullToken);
    this.readOnlyTokenDigest = readOnlyToken == null ? null : sha256(readOnlyToken);
    this.fullFingerprint = fingerprint(fullToken);
    this.readOnlyFingerprint = readOnlyToken == null ? null : fingerprint(readOnlyToken);
    this.clock = clock;
  }

  /** The role a token given at the login form grants, or empty when it is neither token. */
  Optional<Role> roleOf(String token) {
    if (token == null || token.isEmpty()) {
      return Optional.empty();
    }
    byte[] given = sha256(token.trim());
    // why: both comparisons always run, on digests of equal length, so timing tells nothing
    boolean full = MessageDigest.isEqual(fullTokenDigest, given);
    boolean readOnly = readOnlyTokenDigest != null && MessageDigest.isEqual(readOnlyTokenDigest, given);
    return full ? Optional.of(Role.FULL) : readOnly ? Optional.of(Role.READ_ONLY) : Optional.empty();
  }

  /** A new session cookie's value for {@code role}. */
  String issue(Role role) {
    long now = clock.instant().getEpochSecond();
    byte[] fingerprint = role == Role.FULL ? fullFingerprint : readOnlyFingerprint;
    String payload = String.join("|", VERSION, role.code(), Long.toString(now),
        Long.toString(now + LIFETIME.toSeconds()), B64.encodeToString(fingerprint));
    byte[] bytes = payload.getBytes(StandardCharsets.UTF_8);
    return B64.encodeToString(bytes) + "." + B64.encodeToString(hmac(key, bytes));
  }

  /** The session a cookie value stands for, or empty when it is forged, altered, expired or of another token. */
  Optional<Session> verify(String value) {
    if (value == null || value.length() > MAX_COOKIE_CHARS) {
      return Optional.empty();
    }
    int dot = value.indexOf('.');
    if (dot <= 0 || dot != value.lastIndexOf('.')) {
      return Optional.empty();
    }
    byte[] payload;
    byte[] signature;
    try {
      payload = B64_DECODE.decode(value.substring(0, dot));
      signature = B64_DECODE.decode(value.substring(dot + 1));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
    if (!MessageDigest.isEqual(hmac(key, payload), signature)) {
      return Optional.empty();
    }
    String[] fields = new String(payload, StandardCharsets.UTF_8).split("\\|", -1);
    if (fields.length != 5 || !fields[0].equals(VERSION)) {
      return Optional.empty();
    }
    Role role = Role.ofCode(fields[1]);
    byte[] expected = role == Role.FULL ? fullFingerprint : role == Role.READ_ONLY ? readOnlyFingerprint : null;
    if (expected == null) {
      return Optional.empty();
    }
    long issued;
    long expires;
    byte[] fingerprint;
    try {
      issued = Long.parseLong(fields[2]);
      expires = Long.parseLong(fields[3]);
      fingerprint = B64_DECODE.decode(fields[4]);
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
    long now = clock.instant().getEpochSecond();
    if (!MessageDigest.isEqual(expected, fingerprint) || now >= expires || expires - issued > LIFETIME.toSeconds()
        || issued > now + 60) {
      return Optional.empty();
    }
    return Optional.of(new Session(role, issued, expires));
  }

  /** The value of {@value #COOKIE} in a {@code Cookie} header, or null. */
  static String cookieValue(String cookieHeader) {
    if (cookieHeader == null) {
      return null;
    }
    for (String part : cookieHeader.split(";")) {
      String pair = part.trim();
      if (pair.startsWith(COOKIE + "=")) {
        return pair.substring(COOKIE.length() + 1).trim();
      }
    }
    return null;
  }

  private byte[] fingerprint(String token) {
    return Arrays.copyOf(hmac(key, ("token " + token).getBytes(StandardCharsets.UTF_8)), 16);
  }

  private static byte[] hmac(byte[] key, String message) {
    return hmac(key, message.getBytes(StandardCharsets.UTF_8));
  }

  private static byte[] hmac(byte[] key, byte[] message) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return mac.doFinal(message);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is missing from this JVM", e);
    }
  }

  private static byte[] sha256(String text) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
