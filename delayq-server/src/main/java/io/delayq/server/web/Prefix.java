package io.delayq.server.web;

import java.util.Set;
import java.util.regex.Pattern;

/**
 * The path prefix the dashboard is reached under behind a reverse proxy: {@code --base-path}, or
 * per request the proxy's {@code X-Forwarded-Prefix}. Every link, form, asset and redirect starts
 * with it.
 */
public final class Prefix {
  /** One or more segments of unreserved characters, each after a '/'; no '.' or '..' segment. */
  private static final Pattern VALID = Pattern.compile("(/[A-Za-z0-9._~-]+)+");
  private static final int MAX_LENGTH = 256;
  /** The first segments of the API's paths ({@code /v1/...}, {@code /health...}, {@code /metrics}, {@code /openapi.json}). */
  private static final Set<String> API_SEGMENTS = Set.of("v1", "health", "metrics", "openapi.json");

  private Prefix() {}

  /** Whether {@code prefix} is a usable prefix such as {@code /delayq} or {@code /ops/delayq}. */
  public static boolean valid(String prefix) {
    if (prefix == null || prefix.length() > MAX_LENGTH || !VALID.matcher(prefix).matches()) {
      return false;
    }
    // why: a browser resolves a '..' segment in a link, which would lead out of the prefix
    for (String segment : prefix.substring(1).split("/")) {
      if (segment.equals(".") || segment.equals("..")) {
        return false;
      }
    }
    return true;
  }

  /**
   * The API path {@code prefix} would hide, or null when it hides none. Requests are served with the
   * base path stripped, so a base path of {@code /v1} (or {@code /health}, {@code /metrics}, {@code
   * /openapi.json}, or anything below one of them) would turn the API's own calls into dashboard
   * pages: health checks and scrapes would be led to the login page.
   */
  public static String shadowedApiPath(String prefix) {
    if (prefix == null || !prefix.startsWith("/")) {
      return null;
    }
    int end = prefix.indexOf('/', 1);
    String first = end < 0 ? prefix.substring(1) : prefix.substring(1, end);
    return API_SEGMENTS.contains(first) ? "/" + first : null;
  }

  /**
   * The prefix of one request: a valid {@code X-Forwarded-Prefix} (an invalid one is ignored), else
   * the configured base path, else none ({@code ""}).
   */
  static String of(String basePath, String forwardedPrefix) {
    if (forwardedPrefix != null) {
      String given = forwardedPrefix.trim();
      if (valid(given)) {
        return given;
      }
    }
    return basePath == null ? "" : basePath;
  }

  /**
   * {@code path} without the configured base path when it starts with it (a proxy that does not
   * strip the prefix); as it is otherwise.
   */
  public static String strip(String basePath, String path) {
    if (basePath == null || path == null || !path.startsWith(basePath)) {
      return path;
    }
    if (path.length() == basePath.length()) {
      return "/";
    }
    return path.charAt(basePath.length()) == '/' ? path.substring(basePath.length()) : path;
  }
}
