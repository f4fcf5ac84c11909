package io.delayq.server.web;

import java.util.Map;
import java.util.Optional;

/** {@code GET /login}, {@code POST /login} and {@code POST /logout}. */
final class AuthPages {
  private static final int MAX_NEXT = 2048;
  /** The login form's field, and the query parameter the access log never shows. */
  static final String TOKEN = "token";
  private final Dashboard dashboard;

  AuthPages(Dashboard dashboard) {
    this.dashboard = dashboard;
  }

  /**
   * The login form; without a token there is nothing to log in to, and it leads to the queues. A
   * token in the query (a form submitted as a GET, a bookmarked link) is not taken: a URL ends up in
   * the history and in logs, so the page says to use the form, which posts it.
   */
  WebResponse form(WebRequest request, PageContext page) {
    if (dashboard.sessions() == null) {
      return WebResponse.seeOther(page.link());
    }
    String next = localPath(request.query("next"));
    if (request.query(TOKEN) != null) {
      return loginPage(page, 400, next, "a token in the URL is not accepted: the address bar, the browser's history"
          + " and logs keep it; enter the token in this form, which sends it in the request body (if that was the"
          + " real token, consider changing it)");
    }
    return page.page("login.jte", Map.of("next", next));
  }

  /**
   * Exchanges the form's {@code token} for a session cookie, then leads to {@code next}: with
   * {@code HX-Redirect} for htmx, with a 303 for the form posted without JavaScript.
   */
  WebResponse login(WebRequest request, PageContext page) {
    Sessions sessions = dashboard.sessions();
    if (sessions == null) {
      throw WebException.notFound("this server has no token, so there is no login: every page is open on loopback");
    }
    String next = localPath(request.form("next"));
    Optional<Role> role = sessions.roleOf(request.form(TOKEN));
    if (role.isEmpty()) {
      String why = request.formOrNull(TOKEN) == null
          ? "enter the server's token (--token, or the read-only --read-only-token)"
          : "that token is wrong: use the token the server was started with (--token or --read-only-token)";
      return request.fromHtmx() ? page.flash(401, false, why) : loginPage(page, 401, next, why);
    }
    String cookie = Sessions.COOKIE + "=" + sessions.issue(role.get()) + "; Path=" + page.prefix() + "/; Max-Age="
        + Sessions.LIFETIME.toSeconds() + "; HttpOnly; SameSite=Strict" + secure(request);
    if (!request.fromHtmx()) {
      return WebResponse.seeOther(page.url(next)).withHeader("Set-Cookie", cookie);
    }
    return page.flash(200, true, role.get() == Role.FULL ? "logged in" : "logged in, read-only")
        .withHeader("Set-Cookie", cookie)
        .withHeader("HX-Redirect", page.url(next));
  }

  private static WebResponse loginPage(PageContext page, int status, String next, String error) {
    return WebResponse.html(status, page.render("login.jte", Map.of("next", next, "error", error)));
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
