package io.delayq.server.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.delayq.Delayq;
import io.delayq.DelayqClosedException;
import io.delayq.DelayqException;
import io.delayq.InvalidRequestException;
import io.delayq.JobActiveException;
import io.delayq.JobNotFoundException;
import io.delayq.LeaseExpiredException;
import io.delayq.NotReplicatedException;
import io.delayq.OutcomeUnknownException;
import io.delayq.QueueConfigurationException;
import io.delayq.RedisUnavailableException;
import io.delayq.ScheduleNotFoundException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every exception a handler throws becomes a status and the error body {@code {"error": code,
 * "detail": sentence, "field"?: name}} here, and only here. The table is looked up by the
 * exception's class and then its superclasses, so the most specific line wins.
 */
final class ErrorMapping {
  private static final Logger log = LoggerFactory.getLogger(ErrorMapping.class);

  /** A status and error code for a kind of exception. */
  record Mapping(int status, String code) {}

  private static final Map<Class<? extends Throwable>, Mapping> TABLE = new LinkedHashMap<>();

  static {
    TABLE.put(InvalidRequestException.class, new Mapping(400, "invalid_request"));
    TABLE.put(JobNotFoundException.class, new Mapping(404, "not_found"));
    TABLE.put(ScheduleNotFoundException.class, new Mapping(404, "not_found"));
    TABLE.put(JobActiveException.class, new Mapping(409, "conflict"));
    TABLE.put(LeaseExpiredException.class, new Mapping(409, "conflict"));
    TABLE.put(QueueConfigurationException.class, new Mapping(409, "conflict"));
    // The jobs were written to the master; the detail says so, and that scheduling again is safe.
    TABLE.put(NotReplicatedException.class, new Mapping(503, "redis_unavailable"));
    // Refused before it reached Redis: nothing happened, and the same call may simply be sent again.
    TABLE.put(RedisUnavailableException.class, new Mapping(503, "redis_unavailable"));
    // Sent, but no answer came (a timeout, a link that dropped mid-call): it may or may not have
    // taken effect, which is a different thing for the client to handle than "nothing happened".
    TABLE.put(OutcomeUnknownException.class, new Mapping(504, "outcome_unknown"));
    TABLE.put(DelayqClosedException.class, new Mapping(503, "shutting_down"));
    // Any other delayq failure, e.g. Redis refusing a command (out of memory): its message says what.
    TABLE.put(DelayqException.class, new Mapping(500, "internal"));
  }

  private ErrorMapping() {}

  /** The mapping for {@code error}'s class or its nearest superclass in the table, or null. */
  static Mapping lookup(Class<?> type) {
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      Mapping mapping = TABLE.get(c);
      if (mapping != null) {
        return mapping;
      }
    }
    return null;
  }

  /** The response for a failed request; logs server-side failures. */
  static Response toResponse(Throwable error, String method, String path) {
    Failure failure = failure(error, method, path);
    Response response = Response.json(failure.status(), failure.body());
    for (Map.Entry<String, String> header : failure.headers().entrySet()) {
      response = response.withHeader(header.getKey(), header.getValue());
    }
    return response;
  }

  /** A failure's status, error body and headers, as a response or a batch element answers it. */
  record Failure(int status, ObjectNode body, Map<String, String> headers) {}

  /** What {@code error} is answered with; logs server-side failures. */
  static Failure failure(Throwable error, String method, String path) {
    if (error instanceof ApiException api) {
      return new Failure(api.status(), body(api.code(), api.getMessage(), api.field()), api.headers());
    }
    if (error instanceof io.delayq.server.web.WebException web) {
      return new Failure(web.status(), body(web.status() == 403 ? "forbidden" : web.status() == 404 ? "not_found"
          : "refused", web.getMessage(), null), web.headers());
    }
    if (error instanceof java.io.IOException) {
      // why: the client went away or stalled while sending its body; nothing on our side failed
      log.debug("{} {}: cannot read the request: {}", method, path, error.toString());
      return new Failure(
          400, body("invalid_request", "the request body could not be read (" + error.getMessage()
              + "); send it again, whole", "body"), Map.of());
    }
    Mapping mapping = lookup(error.getClass());
    if (mapping == null) {
      String ref = UUID.randomUUID().toString().substring(0, 8);
      log.error("{} {} failed unexpectedly (ref {})", method, path, ref, error);
      return new Failure(
          500, body("internal", "the server failed unexpectedly (ref " + ref + "); its log has the details", null), Map.of());
    }
    if (mapping.status() >= 500) {
      log.warn("{} {} answered {}: {}", method, path, mapping.status(), error.getMessage());
    }
    String field = error instanceof InvalidRequestException invalid ? invalid.field() : null;
    String detail = error instanceof OutcomeUnknownException
        ? outcomeUnknownDetail(error.getMessage(), "GET".equals(method))
        : error.getMessage();
    return new Failure(
        mapping.status(), body(mapping.code(), detail, field), mapping.status() == 503 ? Map.of("Retry-After", "1") : Map.of());
  }

  /**
   * The server's clients use the server's core client, whose idempotency window is the library
   * default: finished ids are remembered that long, which is what makes a retried schedule safe.
   */
  static final Duration IDEMPOTENCY_WINDOW = Delayq.Builder.DEFAULT_IDEMPOTENCY_WINDOW;

  /** The core's account of what went wrong, then what a client may safely do about it. */
  static String outcomeUnknownDetail(String message, boolean read) {
    String what = message == null || message.isBlank() ? "Redis did not answer in time" : message.strip();
    what = what + (what.endsWith(".") ? "" : ".");
    if (read) {
      return what + " This call only reads, so it changed nothing: retry it.";
    }
    return what + " The call may have taken effect, or not. A schedule sent with \"onDuplicate\":\"keep\""
        + " may be sent again as it was within the idempotency window (" + minutes(IDEMPOTENCY_WINDOW)
        + "): a job still waiting is kept as it is, and one that already ran or was cancelled is not"
        + " scheduled again. Sent again with \"replace\" (the default), a job that already ran runs again."
        + " An ack or nack may be retried with the same token; a 409 then means the first"
        + " one took effect or the lease ended. A claim may be retried: jobs it leased unanswered go back.";
  }

  private static String minutes(Duration window) {
    return window.toSecondsPart() == 0 && window.toMinutes() > 0
        ? window.toMinutes() + (window.toMinutes() == 1 ? " minute" : " minutes")
        : window.toSeconds() + " s";
  }

  static ObjectNode body(String code, String detail, String field) {
    ObjectNode body = Json.object().put("error", code).put("detail", detail);
    if (field != null) {
      body.put("field", field);
    }
    return body;
  }
}
