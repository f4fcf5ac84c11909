package io.delayq.server.web;

import java.util.Map;
import java.util.Optional;

/** {@code GET /login}, {@code POST /login} and {@code POST /logout}. */
final class AuthPages {
  private static final int MAX_NEXT = 2048;
  private final Dashboard dashboard;

  AuthPages(Dashboard dashboard) {
    this.dashboard = dashboard;
  }

  /** The login form; without a token there is nothing to log in to, and it leads to the queues. */
  WebResponse form(WebRequest request, PageContext page) {
    if (dashboard.sessions() == null) {
      return WebResponse.seeOther(page.link());
    }
    return page.page("login.jte", Map.of("next", localPath(request.query("next"))));
  }

  /** Exchanges the form's {@code token} for a session cookie, then leads to {@code next}. */
  WebResponse login(WebRequest request, PageContext page) {
    Sessions sessions = dashboard.sessions();
    if (sessions == null) {
      throw WebException.notFound("this server has no token, so there is no login: every page is open on loopback");
    }
    Optional<Role> role = sessions.roleOf(request.form("token"));
    if (role.isEmpty()) {
      return page.flash(401, false, request.formOrNull("token") == null
          ? "enter the server's token (--token, or the read-only --read-only-token)"
          : "that token is wrong: use the token the server was started with (--token or --read-only-token)");
    }
    String cookie = Sessions.COOKIE + "=" + sessions.issue(role.get()) + "; Path=" + page.prefix() + "/; Max-Age="
        + Sessions.LIFETIME.toSeconds() + "; HttpOnly; SameSite=Strict" + secure(request);
    return page.flash(200, true, role.get() == Role.FULL ? "logged in" : "logged in, read-only")
        .withHeader("Set-Cookie", cookie)
        .withHeader("HX-Redirect", page.url(localPath(request.form("next"))));
  }

  /** Clears the session cookie and leads to the login form. */
  WebResponse logout(WebRequest request, PageContext page) {
    String cookie = Sessions.COOKIE + "=; Path=" + page.prefix() + "/; Max-Age=0; HttpOnly; SameSite=Strict"
        + secure(request);
    return page.flash(200, true, "logged out")
        .withHeader("Set-Cookie", cookie)
        .withHeader("HX-Redirect", dashboard.sessions() == null ? page.link() : page.url("/login"));
  }

  private String secure(WebRequest request) {
    return dashboard.secure(request::header) ? "; Secure" : "";
  }

  /**
   * {@code next} when it is a path of this dashboard ({@code /queues/...}); otherwise {@code /}: a
   * link to another site ({@code //evil.example}, {@code https://...}) never becomes a redirect.
   */
  static String localPath(String next) {
    if (next == null || next.isEmpty() || next.length() > MAX_NEXT || next.charAt(0) != '/'
        || next.startsWith("//") || next.startsWith("/login")) {
      return "/";
    }
    for (int i = 0; i < next.length(); i++) {
      char c = next.charAt(i);
      if (c < 0x21 || c == 0x7f || c == '\\' || c > 0x7e) {
        return "/";
      }
    }
    return next;
  }
}
