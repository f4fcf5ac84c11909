package io.delayq.spring.autoconfigure;

import java.nio.charset.StandardCharsets;

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
    return url.replaceAll("//[^@/,]*@", "//***@");
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
