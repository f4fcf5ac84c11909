package io.delayq.server.web;

import java.util.Map;

/**
 * A refusal decided by the dashboard (no session, a cross-site action, a read-only session, a bad
 * form field, no such job, ...), with the status it is answered with. The message says what was
 * wrong and what to do; it is shown to the user, HTML-escaped, as an error page or flash message.
 */
public final class WebException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int status;
  private final transient Map<String, String> headers;

  /** A refusal with {@code status} and a message for the user. */
  public WebException(int status, String message) {
    this(status, message, Map.of());
  }

  /** A refusal with extra response headers (a redirect's {@code Location}, say). */
  public WebException(int status, String message, Map<String, String> headers) {
    super(message);
    this.status = status;
    this.headers = Map.copyOf(headers);
  }

  public static WebException badRequest(String message) {
    return new WebException(400, message);
  }

  public static WebException forbidden(String message) {
    return new WebException(403, message);
  }

  public static WebException notFound(String message) {
    return new WebException(404, message);
  }

  public static WebException conflict(String message) {
    return new WebException(409, message);
  }

  /** The HTTP status. */
  public int status() {
    return status;
  }

  /** Extra headers of the answer. */
  public Map<String, String> headers() {
    return headers;
  }
}
