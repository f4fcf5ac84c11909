package io.delayq.server.http;

import java.util.Locale;

/**
 * Whether a browser's {@code Origin} header names the server a request came to: the same scheme
 * (https when the connection is TLS or a proxy in front says {@code X-Forwarded-Proto: https},
 * else http), the same host as the {@code Host} header, and the same port (a scheme's default
 * port when none is written). An origin of another scheme is another site's (RFC 6454): a page
 * served over plain HTTP on the same name is not the dashboard served over HTTPS, and the reverse.
 */
public final class OwnOrigin {
  private OwnOrigin() {}

  /**
   * Whether {@code origin} ({@code https://example.com:8443}) is this server's own.
   *
   * @param origin the {@code Origin} header's value
   * @param host the {@code Host} header's value, or null (then nothing is this server's origin)
   * @param https whether the request reached this server over https (here or at a proxy in front)
   */
  public static boolean matches(String origin, String host, boolean https) {
    if (origin == null || host == null) {
      return false;
    }
    String given = origin.trim().toLowerCase(Locale.ROOT);
    String scheme = https ? "https" : "http";
    if (!given.startsWith(scheme + "://")) {
      return false;
    }
    String[] theirs = hostAndPort(given.substring(scheme.length() + 3), scheme);
    String[] ours = hostAndPort(host.trim().toLowerCase(Locale.ROOT), scheme);
    return theirs != null && ours != null && theirs[0].equals(ours[0]) && theirs[1].equals(ours[1]);
  }

  /** Whether a request came over https: TLS here, or {@code X-Forwarded-Proto: https} from a proxy in front. */
  public static boolean https(boolean tls, String forwardedProto) {
    return tls || forwardedProto != null && forwardedProto.split(",")[0].trim().equalsIgnoreCase("https");
  }

  /** {@code [host, port]} of an authority such as {@code example.com:8443} or {@code [::1]}; null when malformed. */
  private static String[] hostAndPort(String authority, String scheme) {
    String host;
    String port;
    if (authority.startsWith("[")) {
      int end = authority.indexOf(']');
      if (end < 0) {
        return null;
      }
      host = authority.substring(0, end + 1);
      String rest = authority.substring(end + 1);
      if (!rest.isEmpty() && !rest.startsWith(":")) {
        return null;
      }
      port = rest.isEmpty() ? "" : rest.substring(1);
    } else {
      int colon = authority.indexOf(':');
      host = colon < 0 ? authority : authority.substring(0, colon);
      port = colon < 0 ? "" : authority.substring(colon + 1);
    }
    if (host.isEmpty() || host.indexOf('/') >= 0 || host.indexOf('@') >= 0) {
      return null;
    }
    if (port.isEmpty()) {
      port = scheme.equals("https") ? "443" : "80";
    }
    for (int i = 0; i < port.length(); i++) {
      if (port.charAt(i) < '0' || port.charAt(i) > '9') {
        return null;
      }
    }
    String digits = port.replaceFirst("^0+(?=.)", "");
    return new String[] {host, digits};
  }
}
