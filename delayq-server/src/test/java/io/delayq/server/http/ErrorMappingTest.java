package io.delayq.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayq.DelayqClosedException;
import io.delayq.InvalidRequestException;
import io.delayq.JobActiveException;
import io.delayq.JobNotFoundException;
import io.delayq.LeaseExpiredException;
import io.delayq.NotReplicatedException;
import io.delayq.OutcomeUnknownException;
import io.delayq.QueueConfigurationException;
import io.delayq.RedisCommandException;
import io.delayq.RedisUnavailableException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ErrorMappingTest {

  @Test
  void mapsEveryCoreExceptionToItsStatusAndCode() throws Exception {
    assertMapped(new InvalidRequestException("delayMs", "must be between 0 and 9; got -5"), 400, "invalid_request");
    assertMapped(new JobNotFoundException("q", "7", "no such scheduled job"), 404, "not_found");
    assertMapped(new JobActiveException("q", "7", "a worker holds it"), 409, "conflict");
    assertMapped(new LeaseExpiredException("q", "7", 1796025305549000L), 409, "conflict");
    assertMapped(new QueueConfigurationException("holds jobs"), 409, "conflict");
    assertMapped(new RedisUnavailableException("Redis at redis://x:1 is unreachable", null), 503, "redis_unavailable");
    assertMapped(new NotReplicatedException("q", 1, 0, List.of("7"), Duration.ofMinutes(5)), 503, "redis_unavailable");
    assertMapped(new DelayqClosedException("claim"), 503, "shutting_down");
    assertMapped(new RedisCommandException("Redis at redis://x:1 refused a delayq command: OOM", null), 500, "internal");
  }

  @Test
  void anUnknownOutcomeIsA504ThatSaysTheCallMayHaveTakenEffectAndWhatIsSafeToRetry() throws Exception {
    OutcomeUnknownException error = new OutcomeUnknownException(
        "Redis at redis://x:1 did not answer within PT10S, so the call may or may not have taken effect", null);
    Response response = ErrorMapping.toResponse(error, "POST", "/v1/queues/q/jobs");
    assertThat(response.status()).isEqualTo(504);
    assertThat(response.headers()).doesNotContainKey("Retry-After");
    JsonNode body = body(response);
    assertThat(body.path("error").asText()).isEqualTo("outcome_unknown");
    assertThat(body.has("field")).isFalse();
    assertThat(body.path("detail").asText())
        .startsWith(error.getMessage())
        .contains("may have taken effect")
        .contains("A schedule sent with \"onDuplicate\":\"keep\" may be sent again as it was within the idempotency window (5 minutes)");
    JsonNode read = body(ErrorMapping.toResponse(error, "GET", "/v1/queues/q/jobs/7"));
    assertThat(read.path("error").asText()).isEqualTo("outcome_unknown");
    assertThat(read.path("detail").asText()).startsWith(error.getMessage()).contains("only reads").contains("retry it");
    // refused before reaching Redis is another answer: nothing happened
    assertThat(ErrorMapping.lookup(RedisUnavailableException.class)).isEqualTo(new ErrorMapping.Mapping(503, "redis_unavailable"));
  }

  @Test
  void invalidRequestsNameTheirField() throws Exception {
    JsonNode body = body(ErrorMapping.toResponse(new InvalidRequestException("[2].id", "is empty"), "POST", "/x"));
    assertThat(body.path("field").asText()).isEqualTo("[2].id");
    assertThat(body.path("detail").asText()).isEqualTo("[2].id: is empty");
  }

  @Test
  void apiExceptionsCarryTheirStatusAndHeaders() throws Exception {
    Response response = ErrorMapping.toResponse(ApiException.unauthorized("no token"), "GET", "/v1/queues");
    assertThat(response.status()).isEqualTo(401);
    assertThat(response.headers()).containsEntry("WWW-Authenticate", "Bearer realm=\"delayq\"");
    assertThat(body(response).path("error").asText()).isEqualTo("unauthorized");
    assertThat(ErrorMapping.toResponse(ApiException.methodNotAllowed("no", "GET"), "PUT", "/").headers())
        .containsEntry("Allow", "GET");
  }

  @Test
  void anythingElseIsA500WithAReferenceButNoInternals() throws Exception {
    Response response = ErrorMapping.toResponse(new NullPointerException("secret internals"), "GET", "/x");
    assertThat(response.status()).isEqualTo(500);
    JsonNode body = body(response);
    assertThat(body.path("error").asText()).isEqualTo("internal");
    assertThat(body.path("detail").asText()).contains("ref ").doesNotContain("secret");
  }

  private static void assertMapped(Exception error, int status, String code) throws Exception {
    Response response = ErrorMapping.toResponse(error, "GET", "/x");
    assertThat(response.status()).as(error.getClass().getSimpleName()).isEqualTo(status);
    assertThat(response.contentType()).isEqualTo(Response.JSON);
    JsonNode body = body(response);
    assertThat(body.path("error").asText()).isEqualTo(code);
    assertThat(body.path("detail").asText()).isEqualTo(error.getMessage());
  }

  private static JsonNode body(Response response) throws Exception {
    return new ObjectMapper().readTree(response.body());
  }
}
