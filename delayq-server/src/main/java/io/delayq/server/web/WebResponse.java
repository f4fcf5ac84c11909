package io.delayq.server.web;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a dashboard handler answers: status, media type, body and extra headers. The server adds
 * the security headers ({@link Dashboard#SECURITY_HEADERS}) and {@code Cache-Control: no-store}
 * unless a response sets its own {@code Cache-Control}.
 *
 * @param status the HTTP status
 * @param contentType the body's media type, or null without a body
 * @param body the body, or null for none
 * @param headers extra headers
 */
public record WebResponse(int status, String contentType, byte[] body, Map<String, String> headers) {
  /** The media type of every page and fragment. */
  public static final String HTML = "text/html; charset=utf-8";

  public WebResponse {
    headers = Map.copyOf(headers);
  }

  /** An HTML page or fragment. */
  public static WebResponse html(int status, String html) {
    return new WebResponse(status, HTML, html.getBytes(StandardCharsets.UTF_8), Map.of());
  }

  /** A {@code 303 See Other} to {@code location} (which must already start with the prefix). */
  public static WebResponse seeOther(String location) {
    return new WebResponse(303, null, null, Map.of("Location", location));
  }

  /** This response with one more header (replacing one of the same name). */
  public WebResponse withHeader(String name, String value) {
    Map<String, String> more = new LinkedHashMap<>(headers);
    more.put(name, value);
    return new WebResponse(status, contentType, body, more);
  }
}
