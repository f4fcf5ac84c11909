package io.delayq.server.web;

import io.delayq.Delayq;
import io.delayq.server.http.HttpSettings;
import io.delayq.server.http.OwnOrigin;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The dashboard as the HTTP server sees it: its routes, the admission of each request (session,
 * CSRF, read-only), the context a page is rendered with, and HTML error pages.
 *
 * <p>Security model (docs/DASHBOARD.md): with a token, every page needs a session cookie made by
 * logging in with the full or the read-only token ({@link Sessions}); without one, everybody on
 * loopback has full access. Every POST must come from the dashboard's own pages ({@code
 * Sec-Fetch-Site: same-origin}, or no such header and an {@code Origin} of this server or none) and
 * carry {@code X-Delayq-Request: dashboard}, which no cross-site form can send; the login form's
 * POST alone may lack that header when the browser vouches for it (it must work without
 * JavaScript). Every answer of the server carries {@link #SECURITY_HEADERS}, and never a CORS header.
 */
public final class Dashboard {
  /** The headers of every dashboard answer (the server sends them on its API's answers too). */
  public static final Map<String, String> SECURITY_HEADERS = Map.of(
      "Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
          + " connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
      "X-Content-Type-Options", "nosniff",
      "X-Frame-Options", "DENY",
      "Referrer-Policy", "same-origin");
  /** The header every dashboard POST carries (set by {@code hx-headers} on {@code <body>}). */
  public static final String REQUEST_HEADER = "X-Delayq-Request";
  static final String REQUEST_HEADER_VALUE = "dashboard";
  /** The login route's pattern: its POST is admitted as a plain form too (see {@link #admit}). */
  static final String LOGIN = "/login";
  /** API paths outside {@code /v1}: everything else that is not {@code /v1/...} is the dashboard's. */
  private static final Set<String> API_PATHS = Set.of("/health", "/health/live", "/health/ready", "/metrics",
      "/openapi.json");

  private final Sessions sessions;
  private final String basePath;
  private final boolean tls;
  private final Templates templates = new Templates();
  private final Assets assets = new Assets();
  private final List<DashboardRoute> routes;

  /** The dashboard on {@code delayq}, with the tokens, base path and TLS of {@code settings}. */
  public Dashboard(Delayq delayq, HttpSettings settings) {
    this(delayq, settings, Clock.systemUTC());
  }

  Dashboard(Delayq delayq, HttpSettings settings, Clock clock) {
    this.sessions = settings.token() == null ? null : new Sessions(settings.token(), settings.readOnlyToken(), clock);
    this.basePath = settings.basePath();
    this.tls = settings.tls();
    this.routes = DashboardRoutes.table(delayq, this);
  }

  /** Every route of the dashboard. */
  public List<DashboardRoute> routes() {
    return routes;
  }

  /** Whether a path (below the base path) that matches no route belongs to the dashboard, not the API. */
  public static boolean isDashboardPath(String path) {
    return !(path.equals("/v1") || path.startsWith("/v1/") || API_PATHS.contains(path));
  }

  /**
   * Admits a request to {@code route} before its body is read, or refuses it: a POST from anywhere
   * but the dashboard's own pages (403), no valid session (303 to the login page for a page, 401
   * for htmx and POSTs), a read-only session on an action (403).
   *
   * @param target the path and query below the prefix, for the login page to lead back to
   * @throws WebException the refusal
   */
  public void admit(DashboardRoute route, String method, Function<String, String> headers, String target) {
    boolean read = "GET".equals(method) || "HEAD".equals(method);
    if (!read) {
      checkSameOrigin(method, headers, route.pattern().equals(LOGIN) && "POST".equals(route.method()));
    }
    if (!route.session()) {
      return;
    }
    Role role = role(headers);
    if (role == null) {
      String prefix = Prefix.of(basePath, headers.apply("X-Forwarded-Prefix"));
      String login = prefix + "/login?next=" + PageContext.queryValue(target);
      if (read && !"true".equalsIgnoreCase(headers.apply("HX-Request"))) {
        throw new WebException(303, "log in first", Map.of("Location", login));
      }
      throw new WebException(401, "your session has ended or is not valid; log in again",
          Map.of("HX-Redirect", prefix + "/login"));
    }
    if (route.writes() && role != Role.FULL) {
      throw WebException.forbidden("this session is read-only: it may look, not change anything;"
          + " log in with the full token to act");
    }
  }

  /**
   * Refuses a POST that does not come from the dashboard's own pages. The browser says where it
   * comes from with {@code Sec-Fetch-Site} (then it must be same-origin), or else with {@code
   * Origin} (then it must be this server's, scheme and port included). Besides, an action must
   * carry {@link #REQUEST_HEADER}, which no form of another site can send.
   *
   * @param plainFormAllowed the login form's POST: it must work without JavaScript, so without the
   *     header too, and is then admitted only when the browser vouches for it (same-origin, or this
   *     server's Origin); a login from elsewhere could otherwise log a victim in as someone else
   */
  private void checkSameOrigin(String method, Function<String, String> headers, boolean plainFormAllowed) {
    String site = headers.apply("Sec-Fetch-Site");
    String origin = headers.apply("Origin");
    if (site != null) {
      if (!site.trim().equalsIgnoreCase("same-origin")) {
        throw WebException.forbidden("a " + method + " from another site (Sec-Fetch-Site: " + abbreviate(site)
            + ") is refused; use the dashboard's own pages");
      }
    } else if (origin != null && !OwnOrigin.matches(origin, headers.apply("Host"), secure(headers))) {
      throw WebException.forbidden("a " + method + " from origin '" + abbreviate(origin) + "' is refused: it is"
          + " not this server (scheme, host and port); use the dashboard's own pages");
    }
    if (REQUEST_HEADER_VALUE.equals(headers.apply(REQUEST_HEADER))) {
      return;
    }
    if (plainFormAllowed && (site != null || origin != null)) {
      return;
    }
    throw WebException.forbidden("a dashboard " + method + " must carry the header " + REQUEST_HEADER + ": "
        + REQUEST_HEADER_VALUE + " (the dashboard's pages send it); reload the page and try again");
  }

  /** The role of the request's session; {@link Role#FULL} without a token; null when it has no valid session. */
  Role role(Function<String, String> headers) {
    if (sessions == null) {
      return Role.FULL;
    }
    String cookies = headers.apply("Cookie");
    if (cookies == null) {
      return null;
    }
    // why: a browser may hold two cookies of that name (another path); any valid one counts
    for (String part : cookies.split(";")) {
      String pair = part.trim();
      if (pair.startsWith(Sessions.COOKIE + "=")) {
        Optional<Sessions.Session> session = sessions.verify(pair.substring(Sessions.COOKIE.length() + 1).trim());
        if (session.isPresent()) {
          return session.get().role();
        }
      }
    }
    return null;
  }

  /** Runs an admitted request's handler with its page context. */
  public WebResponse handle(DashboardRoute route, WebRequest request) throws Exception {
    return route.handler().handle(request, context(request::header, request.target()));
  }

  PageContext context(Function<String, String> headers, String target) {
    return new PageContext(Prefix.of(basePath, headers.apply("X-Forwarded-Prefix")), role(headers), sessions != null,
        target, templates, assets);
  }

  /**
   * A refusal or failure as HTML: a flash message for htmx, else an error page in the layout. A
   * redirect keeps its {@code Location} and gets a short body.
   *
   * @param extraHeaders headers the failure brings ({@code Location}, {@code Retry-After}, ...)
   */
  public WebResponse error(int status, String message, Map<String, String> extraHeaders,
      Function<String, String> headers, String target) {
    PageContext page = context(headers, target);
    WebResponse answer;
    if (status >= 300 && status < 400) {
      answer = WebResponse.html(status, page.render("flash.jte", Map.of("ok", true, "message", Display.visible(message))));
    } else if ("true".equalsIgnoreCase(headers.apply("HX-Request"))) {
      answer = page.flash(status, false, message);
    } else {
      answer = WebResponse.html(status, page.render("error.jte", Map.of("status", status,
          "message", Display.visible(message))));
    }
    for (Map.Entry<String, String> header : new LinkedHashMap<>(extraHeaders).entrySet()) {
      answer = answer.withHeader(header.getKey(), header.getValue());
    }
    return answer;
  }

  Sessions sessions() {
    return sessions;
  }

  String basePath() {
    return basePath;
  }

  /** Whether the request came over https (TLS here or at a proxy in front): the cookie then gets {@code Secure}. */
  boolean secure(Function<String, String> headers) {
    return OwnOrigin.https(tls, headers.apply("X-Forwarded-Proto"));
  }

  Assets assets() {
    return assets;
  }

  private static String abbreviate(String s) {
    return s.length() <= 64 ? s : s.substring(0, 61) + "...";
  }
}
