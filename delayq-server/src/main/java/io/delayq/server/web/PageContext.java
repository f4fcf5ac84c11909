package io.delayq.server.web;

import io.delayq.server.http.PathCodec;
import java.util.HashMap;
import java.util.Map;

/**
 * What a page needs besides its data: the prefix every link starts with, the user's role and
 * whether they may write, the asset URLs, and rendering. Templates receive it as {@code page}.
 */
public final class PageContext {
  private final String prefix;
  private final Role role;
  private final boolean loginRequired;
  private final String target;
  private final Templates templates;
  private final Assets assets;

  PageContext(String prefix, Role role, boolean loginRequired, String target, Templates templates, Assets assets) {
    this.prefix = prefix;
    this.role = role;
    this.loginRequired = loginRequired;
    this.target = target;
    this.templates = templates;
    this.assets = assets;
  }

  /** The prefix, such as {@code /delayq}, or {@code ""}; never ends with '/'. */
  public String prefix() {
    return prefix;
  }

  /** The user's role; null on a page shown before login (the login form, an error before it). */
  public Role role() {
    return role;
  }

  /** Whether actions are allowed: a full session, or a server without a token. */
  public boolean canWrite() {
    return role == Role.FULL;
  }

  /** Whether the user looks only (the read-only badge is shown, action buttons are not). */
  public boolean readOnly() {
    return role == Role.READ_ONLY;
  }

  /** Whether the server has a token, so that the user has logged in and may log out. */
  public boolean loginRequired() {
    return loginRequired;
  }

  /** Whether the user has a session (the logout button is shown). */
  public boolean loggedIn() {
    return loginRequired && role != null;
  }

  /** The current request's path and query below the prefix. */
  public String target() {
    return target;
  }

  /**
   * A link below the prefix made of path segments, each percent-encoded: {@code link("queues",
   * name, "jobs", id)} gives {@code /delayq/queues/orders%2Feu/jobs/a%20b}. No segments: the
   * prefix's root, {@code /delayq/}.
   */
  public String link(String... segments) {
    if (segments.length == 0) {
      return prefix + "/";
    }
    StringBuilder out = new StringBuilder(prefix);
    for (String segment : segments) {
      out.append('/').append(segment(segment));
    }
    return out.toString();
  }

  /** {@code path} (which starts with '/' and is already encoded) below the prefix. */
  public String url(String path) {
    return prefix + path;
  }

  /**
   * One path segment, percent-encoded; {@code .} and {@code ..} are escaped too, since a browser
   * would resolve them as a link's "here" and "up".
   */
  public static String segment(String text) {
    String encoded = PathCodec.encodeSegment(text);
    return encoded.equals(".") ? "%2E" : encoded.equals("..") ? "%2E%2E" : encoded;
  }

  /** Text percent-encoded for a query parameter's value. */
  public static String queryValue(String text) {
    return java.net.URLEncoder.encode(text, java.nio.charset.StandardCharsets.UTF_8).replace("+", "%20");
  }

  /** The URL of one of the dashboard's own static files ({@code delayq.css}, {@code app.js}, ...). */
  public String asset(String file) {
    return assets.ownUrl(prefix, file);
  }

  /** The URL of a file of a bundled webjar, such as {@code webjar("htmx.org", "dist/htmx.min.js")}. */
  public String webjar(String name, String file) {
    return assets.webjarUrl(prefix, name, file);
  }

  /** Renders a template with this context as its {@code page} parameter. */
  public String render(String template, Map<String, Object> params) {
    Map<String, Object> all = new HashMap<>(params);
    all.put("page", this);
    return templates.render(template, all);
  }

  /** A whole page: 200, the template rendered with {@code params} and this context. */
  public WebResponse page(String template, Map<String, Object> params) {
    return WebResponse.html(200, render(template, params));
  }

  /** A fragment for htmx to swap in (a template without the layout). */
  public WebResponse fragment(String template, Map<String, Object> params) {
    return WebResponse.html(200, render(template, params));
  }

  /**
   * An action's answer: a flash message ({@code data-flash="ok"} or {@code "error"}) that the
   * layout shows.
   */
  public WebResponse flash(int status, boolean ok, String message) {
    // why: messages quote ids, errors and form input, which may hold bidi or control characters
    return WebResponse.html(status, render("flash.jte", Map.of("ok", ok, "message", Display.visible(message))));
  }
}
