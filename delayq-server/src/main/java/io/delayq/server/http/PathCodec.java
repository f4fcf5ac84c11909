package io.delayq.server.http;

import io.delayq.InvalidRequestException;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/** Percent-decoding of path segments and encoding for Location headers, per RFC 3986 ('+' is a plus). */
public final class PathCodec {
  private PathCodec() {}

  /**
   * Decodes one path segment. Unlike {@link java.net.URLDecoder}, '+' stays a plus sign: only form
   * bodies and query strings use it for spaces.
   *
   * @param field the parameter's name, for the error
   * @throws InvalidRequestException when an escape is malformed or the bytes are not UTF-8
   */
  static String decodeSegment(String field, String raw) {
    if (raw.indexOf('%') < 0) {
      return raw;
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(raw.length());
    for (int i = 0; i < raw.length(); i++) {
      char c = raw.charAt(i);
      if (c == '%') {
        int hi = i + 2 < raw.length() ? Character.digit(raw.charAt(i + 1), 16) : -1;
        int lo = hi >= 0 ? Character.digit(raw.charAt(i + 2), 16) : -1;
        if (lo < 0) {
          throw new InvalidRequestException(
              field, "has a malformed percent escape at index " + i + " of '" + abbreviate(raw) + "'");
        }
        bytes.write(hi * 16 + lo);
        i += 2;
      } else {
        byte[] plain = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
        bytes.write(plain, 0, plain.length);
      }
    }
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes.toByteArray()))
          .toString();
    } catch (CharacterCodingException e) {
      throw new InvalidRequestException(
          field, "'" + abbreviate(raw) + "' does not decode to UTF-8 text; percent-encode the UTF-8 bytes");
    }
  }

  /** Encodes text as one path segment: everything but RFC 3986 unreserved characters is escaped. */
  public static String encodeSegment(String text) {
    StringBuilder out = new StringBuilder(text.length());
    for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xff;
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
          || c == '-' || c == '.' || c == '_' || c == '~' || c == ':') {
        out.append((char) c);
      } else {
        out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
            .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
      }
    }
    return out.toString();
  }

  static String abbreviate(String s) {
    return s.length() <= 64 ? s : s.substring(0, 61) + "...";
  }
}
