package io.delayq.server.http;

import io.netty.handler.codec.http.HttpHeaders;
import java.io.IOException;
import java.net.IDN;
import java.net.InetAddress;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/**
 * Keeps web pages the user happens to visit away from a server on their own machine.
 *
 * <p>Without a token, anything that can reach the port may call the API, and a browser can be
 * made to: a page on another site may send a "simple" cross-site POST (no preflight), and a page
 * whose host name is re-bound to 127.0.0.1 (DNS rebinding) may even read the answers. So:
 * <ul>
 *   <li>without a token, the {@code Host} header must name this server (its bind address, a
 *       loopback name, or an allowed host): a rebound name is refused;
 *   <li>always, a call that changes anything (POST, PUT, PATCH, DELETE) is refused when the browser
 *       says it comes from another origin ({@code Sec-Fetch-Site}, or an {@code Origin} that is not
 *       this server: scheme, host and port, see {@link OwnOrigin}). Programs that send neither
 *       header (curl, SDKs, workers) are not affected.
 * </ul>
 */
final class BrowserGuard {
  private static final Set<String> UNSAFE = Set.of("POST", "PUT", "PATCH", "DELETE");

  private final boolean checkHost;
  private final boolean tls;
  private final Set<String> hosts = new HashSet<>();

  BrowserGuard(HttpSettings settings, boolean tokenRequired) {
    this.checkHost = !tokenRequired;
    this.tls = settings.tls();
    hosts.add("localhost");
    hosts.add("127.0.0.1");
    hosts.add(hostOnly("::1"));
    hosts.add(hostOnly(settings.bind()));
    for (String extra : settings.allowedHosts()) {
      hosts.add(hostOnly(extra));
    }
  }

  /** @throws ApiException 403 naming the header that gave the request away */
  void check(String method, HttpHeaders headers) {
    String host = headers.get("Host");
    if (checkHost && host != null && !hosts.contains(hostOnly(host))) {
      throw ApiException.forbidden("Host '" + PathCodec.abbreviate(host) + "' is not this server: without a token it"
          + " answers only to its own address and loopback names (a web page may re-point its own name here);"
          + " call it by address, list the name with --allowed-host (DELAYQ_ALLOWED_HOSTS), or set a token");
    }
    if (!UNSAFE.contains(method)) {
      return;
    }
    String site = headers.get("Sec-Fetch-Site");
    if (site != null && !site.equalsIgnoreCase("same-origin") && !site.equalsIgnoreCase("none")) {
      throw ApiException.forbidden("a " + method + " from a web page of another origin (Sec-Fetch-Site: "
          + PathCodec.abbreviate(site) + ") is refused; call the API from a program or from this server's own pages");
    }
    String origin = headers.get("Origin");
    if (origin != null && !OwnOrigin.matches(origin, host, OwnOrigin.https(tls, headers.get("X-Forwarded-Proto")))) {
      throw ApiException.forbidden("a " + method + " from origin '" + PathCodec.abbreviate(origin) + "' is refused:"
          + " it is not this server; call the API from a program or from this server's own pages");
    }
  }

  /** The host of a {@code Host} value or address, lower case, without port or IPv6 brackets. */
  static String hostOnly(String hostAndPort) {
    String h = hostAndPort.trim().toLowerCase(Locale.ROOT);
    if (h.startsWith("[")) {
      int end = h.indexOf(']');
      return end < 0 ? h : h.substring(1, end);
    }
    int colon = h.indexOf(':');
    if (colon >= 0 && h.indexOf(':', colon + 1) < 0) {
      h = h.substring(0, colon);
    }
    if (h.endsWith(".")) {
      h = h.substring(0, h.length() - 1);
    }
    if (h.indexOf(':') >= 0) {
      // an IPv6 literal, in any of its spellings: compared in its one canonical form
      try {
        return InetAddress.getByName("[" + h + "]").getHostAddress().replaceAll("%.*$", "");
      } catch (IOException | RuntimeException e) {
        return h;
      }
    }
    try {
      return IDN.toASCII(h);
    } catch (IllegalArgumentException e) {
      return h;
    }
  }
}
