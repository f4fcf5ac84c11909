package io.delayq.internal;

import io.delayq.InvalidRequestException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Base64;

/**
 * Page cursors: a position in one listing (a sorted-set score and a member), as an opaque
 * URL-safe string. The position is followed by a check over it and over the listing's name, so a
 * cursor that was cut short, edited, or taken from another queue or listing is refused with a
 * clear message rather than read as some other place. The check is not a secret: a cursor grants
 * nothing its holder could not list anyway.
 */
final class Cursors {
  private static final byte VERSION = 1;
  private static final int CHECK_BYTES = 8;
  /** A cursor holds at most a 256-byte id; anything much longer was never one. */
  private static final int MAX_CURSOR_CHARS = 512;

  /** A place in a listing: after the member {@code member} at score {@code score}. */
  record Position(double score, String member) {}

  private Cursors() {}

  /** The cursor for the position after ({@code score}, {@code member}) in {@code listing}. */
  static String encode(String listing, double score, String member) {
    byte[] id = member.getBytes(StandardCharsets.UTF_8);
    ByteBuffer body = ByteBuffer.allocate(1 + 8 + id.length + CHECK_BYTES);
    body.put(VERSION).putDouble(score).put(id);
    body.put(check(listing, body.array(), body.position()));
    return Base64.getUrlEncoder().withoutPadding().encodeToString(body.array());
  }

  /** The position {@code cursor} stands for in {@code listing}; refuses anything else. */
  static Position decode(String listing, String cursor) {
    if (cursor.isEmpty()) {
      throw new InvalidRequestException(
          "cursor", "is empty; leave it out (null) to start at the beginning, or pass the nextCursor of the previous page");
    }
    byte[] bytes;
    try {
      if (cursor.length() > MAX_CURSOR_CHARS) {
        throw new IllegalArgumentException("too long");
      }
      bytes = Base64.getUrlDecoder().decode(cursor);
    } catch (IllegalArgumentException e) {
      throw notOurs(cursor);
    }
    int body = bytes.length - CHECK_BYTES;
    if (body < 1 + 8 || bytes[0] != VERSION
        || !MessageDigest.isEqual(check(listing, bytes, body), Arrays.copyOfRange(bytes, body, bytes.length))) {
      throw notOurs(cursor);
    }
    ByteBuffer in = ByteBuffer.wrap(bytes, 1, body - 1);
    double score = in.getDouble();
    try {
      String member =
          StandardCharsets.UTF_8.newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(in)
              .toString();
      return new Position(score, member);
    } catch (CharacterCodingException e) {
      throw notOurs(cursor);
    }
  }

  private static InvalidRequestException notOurs(String cursor) {
    return new InvalidRequestException(
        "cursor",
        "'" + Rules.abbreviate(cursor) + "' is not a cursor of this listing: it was cut short or altered, or it"
            + " comes from another queue or another state. Pass the nextCursor of the previous page unchanged,"
            + " or leave cursor out to start at the beginning");
  }

  private static byte[] check(String listing, byte[] body, int length) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      sha.update("delayq-cursor\0".getBytes(StandardCharsets.UTF_8));
      sha.update(listing.getBytes(StandardCharsets.UTF_8));
      sha.update((byte) 0);
      sha.update(body, 0, length);
      return Arrays.copyOf(sha.digest(), CHECK_BYTES);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by the Java platform", e);
    }
  }
}
