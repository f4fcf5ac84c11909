package io.delayq.spring.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The Redis URL the client connects to and where it came from, so that a failure can name the
 * setting to change.
 *
 * @param url the URL handed to delayq-core, credentials included
 * @param source the settings it was made from, as a user would look for them
 */
record RedisTarget(String url, String source) {
  static final String DELAYQ_URL = "delayq.redis.url";

  /** The URL without user and password, for messages. */
  String redacted() {
    String text = url;
    for (String secret : secrets()) {
      text = text.replace("//" + secret + "@", "//***@");
    }
    return text;
  }

  /**
   * The text with every user-info of the URL blanked, and the password and each piece of it: a
   * parser's message may repeat the URL, or the part after an unencoded '/', ',', '@', '%' or ' '
   * in the password, as it was given; no pattern that stops at those characters catches it.
   */
  String scrub(String text) {
    if (text == null) {
      return null;
    }
    String scrubbed = text;
    for (String secret : secrets()) {
      scrubbed = scrubbed.replace(secret, "***");
      int colon = secret.indexOf(':');
      String password = colon < 0 ? "" : secret.substring(colon + 1);
      List<String> pieces = new ArrayList<>(List.of(password.split("[/,@%?#\\s]+")));
      pieces.add(0, password);
      for (String piece : pieces) {
        // why: a piece of one or two characters would blank unrelated text, and tells next to nothing
        if (piece.length() >= 3) {
          scrubbed = scrubbed.replace(piece, "***");
        }
      }
    }
    return scrubbed;
  }

  /**
   * Each URL's user-info: what lies between its "://" and the last '@' before the next "://", so
   * that an unencoded '@', '/' or ',' in a password stays inside it.
   */
  private List<String> secrets() {
    List<String> secrets = new ArrayList<>();
    int scheme = url.indexOf("://");
    while (scheme >= 0) {
      int start = scheme + 3;
      int next = url.indexOf("://", start);
      int at = url.lastIndexOf('@', (next < 0 ? url.length() : next) - 1);
      if (at >= start) {
        secrets.add(url.substring(start, at));
      }
      scheme = next;
    }
    return secrets;
  }

  /**
   * Percent-encodes a user name, password or master name for the user-info or fragment of a URL:
   * everything but RFC 3986's unreserved characters, byte by byte in UTF-8 (never '+' for space,
   * which a URI decoder would keep as '+').
   */
  static String encode(String text) {
    StringBuilder out = new StringBuilder();
    for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
      char c = (char) (b & 0xff);
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || "-._~".indexOf(c) >= 0) {
        out.append(c);
      } else {
        out.append('%').append(Character.toUpperCase(Character.forDigit((b >> 4) & 0xf, 16)))
            .append(Character.toUpperCase(Character.forDigit(b & 0xf, 16)));
      }
    }
    return out.toString();
  }

  /** {@code user:password@}, {@code :password@}, {@code user@} or nothing. */
  static String userInfo(String user, String password) {
    boolean hasUser = user != null && !user.isEmpty();
    boolean hasPassword = password != null && !password.isEmpty();
    if (!hasUser && !hasPassword) {
      return "";
    }
    if (hasUser && user.indexOf(':') >= 0) {
      // why: Lettuce decodes the user-info before splitting it at the first ':', so no encoding helps
      throw new DelayqStartupException(
          "The Redis user name contains ':', which a Redis URL cannot carry (the part after it would be"
              + " taken for the password).",
          "Use an ACL user whose name has no ':' for delayq.",
          null);
    }
    return (hasUser ? encode(user) : "") + (hasPassword ? ":" + encode(password) : "") + "@";
  }

  /** {@code host:port}, with an IPv6 address in brackets. */
  static String hostAndPort(String host, int port) {
    return (host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host) + ":" + port;
  }
}
