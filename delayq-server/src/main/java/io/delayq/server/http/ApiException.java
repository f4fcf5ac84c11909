package io.delayq.server.http;

import java.util.Map;

/**
 * A refusal decided by the HTTP layer itself (no such route, wrong media type, body too large,
 * unknown queue, ...). {@link ErrorMapping} turns it, like every other exception, into the error
 * body {@code {"error","detail","field"?}}.
 */
final class ApiException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int status;
  private final String code;
  private final String field;
  private final transient Map<String, String> headers;

  private ApiException(int status, String code, String detail, String field, Map<String, String> headers) {
    super(detail);
    this.status = status;
    this.code = code;
    this.field = field;
    this.headers = headers;
  }

  static ApiException notFound(String detail) {
    return new ApiException(404, "not_found", detail, null, Map.of());
  }

  static ApiException unknownQueue(String queue) {
    return notFound("queue '" + queue + "' does not exist; it is created by the first job scheduled on it"
        + " (POST /v1/queues/{queue}/jobs) or by PUT /v1/queues/{queue}");
  }

  static ApiException conflict(String detail) {
    return new ApiException(409, "conflict", detail, null, Map.of());
  }

  static ApiException unauthorized(String detail) {
    return new ApiException(401, "unauthorized", detail, null, Map.of("WWW-Authenticate", "Bearer realm=\"delayq\""));
  }

  static ApiException methodNotAllowed(String detail, String allow) {
    return new ApiException(405, "method_not_allowed", detail, null, Map.of("Allow", allow));
  }

  static ApiException payloadTooLarge(String detail) {
    return new ApiException(413, "payload_too_large", detail, null, Map.of("Connection", "close"));
  }

  static ApiException unsupportedMediaType(String detail) {
    return new ApiException(415, "unsupported_media_type", detail, null, Map.of());
  }

  static ApiException tooManyRequests(String detail) {
    return new ApiException(429, "too_many_requests", detail, null, Map.of("Retry-After", "1"));
  }

  /** A request the HTTP layer could not read (bad framing, bad headers): the connection closes after it. */
  static ApiException badFraming(String detail) {
    return new ApiException(400, "bad_request", detail, null, Map.of("Connection", "close"));
  }

  static ApiException forbidden(String detail) {
    return new ApiException(403, "forbidden", detail, null, Map.of());
  }

  static ApiException requestTimeout(String detail) {
    return new ApiException(408, "request_timeout", detail, null, Map.of("Connection", "close"));
  }

  static ApiException uriTooLong(String detail) {
    return new ApiException(414, "uri_too_long", detail, null, Map.of("Connection", "close"));
  }

  static ApiException headersTooLarge(String detail) {
    return new ApiException(431, "headers_too_large", detail, null, Map.of("Connection", "close"));
  }

  static ApiException busy(String detail) {
    return new ApiException(503, "busy", detail, null, Map.of("Retry-After", "1"));
  }

  static ApiException shuttingDown() {
    return new ApiException(
        503, "shutting_down", "the server is shutting down; retry against another instance or after it restarts",
        null, Map.of("Connection", "close", "Retry-After", "1"));
  }

  int status() {
    return status;
  }

  String code() {
    return code;
  }

  /** The request field that was wrong, or null. */
  String field() {
    return field;
  }

  Map<String, String> headers() {
    return headers;
  }
}
