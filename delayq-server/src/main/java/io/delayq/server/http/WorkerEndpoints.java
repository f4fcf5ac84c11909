package io.delayq.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.delayq.InvalidRequestException;
import io.delayq.JobQueue;
import io.delayq.server.forward.ForwardSupervisor;
import io.delayq.JobState;
import io.delayq.LeasedJob;
import io.delayq.PullConsumer;
import io.delayq.PullConsumer.Settled;
import io.delayq.PullConsumer.Settlement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Workers' calls, for workers in any language: claim (long poll), ack, nack, settle many at once,
 * extend a lease. Every
 * delivery a claim hands out carries its fencing token, and the calls that settle or extend it name
 * the delivery by that token, never by the attempt number (which repeats when a job is handed back).
 */
final class WorkerEndpoints {
  private static final Logger log = LoggerFactory.getLogger(WorkerEndpoints.class);
  static final int MAX_CLAIM = 1000;
  static final int MAX_SETTLE = PullConsumer.MAX_SETTLEMENTS;
  static final long MAX_WAIT_MS = 60_000;
  static final long MIN_LEASE_MS = 100;
  static final long MAX_LEASE_MS = Duration.ofDays(1).toMillis();
  private static final Set<String> ACK_FIELDS = Fields.names("token");
  private static final Set<String> NACK_FIELDS = Fields.names("token", "retryInMs", "error");
  private static final Set<String> LEASE_FIELDS = Fields.names("token", "leaseMs");
  private static final Set<String> SETTLE_FIELDS = Fields.names("id", "token", "outcome", "retryInMs", "error");

  private final Queues queues;
  private final ServerMetrics metrics;
  private final LongPolls longPolls;

  private final ForwardSupervisor forwarding;

  WorkerEndpoints(Queues queues, ServerMetrics metrics, LongPolls longPolls) {
    this(queues, metrics, longPolls, null);
  }

  /** @param forwarding the queues this server forwards, whose jobs are not for workers; or null */
  WorkerEndpoints(Queues queues, ServerMetrics metrics, LongPolls longPolls, ForwardSupervisor forwarding) {
    this.forwarding = forwarding;
    this.queues = queues;
    this.metrics = metrics;
    this.longPolls = longPolls;
  }

  /**
   * {@code POST /v1/queues/{queue}/claim?max=N&leaseMs=L&waitMs=W} → 200 array of claimed jobs,
   * empty when none became due within waitMs.
   */
  CompletableFuture<Response> claim(Request request) {
    int max = (int) request.queryInteger("max", 1, MAX_CLAIM, 1);
    long waitMs = request.queryInteger("waitMs", 0, MAX_WAIT_MS, 0);
    Optional<Long> leaseMs =
        request.hasQuery("leaseMs")
            ? Optional.of(request.queryInteger("leaseMs", MIN_LEASE_MS, MAX_LEASE_MS, 0))
            : Optional.empty();
    JobQueue queue = queues.existing(request.path("queue"));
    refuseIfForwarded(queue.name());
    Duration lease = leaseMs.map(Duration::ofMillis).orElseGet(() -> queues.defaults(queue).lease());
    return longPolls.claim(queue, max, lease, Duration.ofMillis(waitMs), request.gone()).thenApply(jobs -> {
      ArrayNode answer = Json.array();
      for (LeasedJob job : jobs) {
        answer.add(Views.leased(job));
        // The claim's own time by the Redis clock: the lease was granted then, for exactly `lease`.
        Instant claimedAt = job.leaseUntil().minus(lease);
        metrics.delivered(queue.name(), Duration.between(job.runAt(), claimedAt));
      }
      // why: a worker that gave up waiting never sees these jobs; back they go, attempt not counted
      return Response.ok(answer).ifUndelivered(() -> LongPolls.handBack(queue, jobs));
    });
  }

  /**
   * A queue the servers forward hands its due jobs to the forward's target: a worker claiming here
   * too would take some of them from it, unseen by whoever reads the target.
   */
  private void refuseIfForwarded(String queue) {
    if (forwarding == null) {
      return;
    }
    forwarding.view(queue).ifPresent(view -> {
      String path = "/v1/queues/" + PathCodec.encodeSegment(queue);
      throw ApiException.conflict("queue '" + queue + "' is forwarded (" + (view.spec() == null ? "forward"
          : view.spec().stored()) + "): its due jobs go there, not to workers. To claim them here, stop the"
          + " forwarding first: PUT " + path + " {\"forward\":null} (or `delayq forward " + queue + " --off`)");
    });
  }

  /** {@code POST .../jobs/{id}/ack} {@code {"token"}} → 204; 409 when that delivery's lease is gone. */
  Response ack(Request request) throws Exception {
    String id = Queues.checkId(request.path("id"));
    Fields fields = settleFields(request.json(BodyLimits.SMALL_BYTES), ACK_FIELDS);
    long token = fields.requiredToken("token");
    JobQueue queue = queues.existing(request.path("queue"));
    queue.pull().ack(id, token);
    metrics.acked(queue.name());
    return Response.noContent();
  }

  /**
   * {@code POST .../jobs/{id}/nack} {@code {"token","retryInMs"?,"error"?}} → 204; the job is
   * tried again after retryInMs (or the default backoff), or goes dead after its last attempt.
   */
  Response nack(Request request) throws Exception {
    String id = Queues.checkId(request.path("id"));
    Fields fields = settleFields(request.json(BodyLimits.SMALL_BYTES), NACK_FIELDS);
    long token = fields.requiredToken("token");
    Duration retryIn =
        fields.integer("retryInMs", 0, JobRequests.MAX_DELAY_MS).stream()
            .mapToObj(Duration::ofMillis)
            .findFirst()
            .orElse(null);
    String error = fields.string("error").orElse(null);
    JobQueue queue = queues.existing(request.path("queue"));
    JobState state = queue.pull().nack(id, token, retryIn, error);
    if (state == JobState.DEAD) {
      metrics.dead(queue.name());
    } else {
      metrics.retried(queue.name());
    }
    return Response.noContent();
  }

  /**
   * {@code POST /v1/queues/{queue}/settle} with a JSON array of 1 to {@value #MAX_SETTLE}
   * {@code {"id","token","outcome":"ack"|"nack","retryInMs"?,"error"?}} → 200 an array in the same
   * order: {@code {"id","status":204}} for an ack, {@code {"id","status":204,"state":"scheduled"|"dead"}}
   * for a nack, or {@code {"id","status",...the error body}} with the status and error the single
   * ack or nack call would have answered (409 when that delivery's lease is gone, 400 for an
   * element that is not a valid settlement: the others are settled all the same).
   */
  Response settle(Request request) throws Exception {
    // why: counted while parsed, so a body of a million tiny elements is refused at the 1,001st
    List<JsonNode> body = request.jsonArray(BodyLimits.SETTLE_BYTES, MAX_SETTLE,
        "settlements (each {\"id\", \"token\", \"outcome\": \"ack\" or \"nack\"})");
    JobQueue queue = queues.existing(request.path("queue"));
    ObjectNode[] answers = new ObjectNode[body.size()];
    List<Settlement> valid = new ArrayList<>(body.size());
    List<Integer> places = new ArrayList<>(body.size());
    String path = "/v1/queues/" + queue.name() + "/settle";
    Map<Throwable, ErrorMapping.Failure> failures = new IdentityHashMap<>();
    for (int i = 0; i < body.size(); i++) {
      try {
        valid.add(settlement(body.get(i), i));
        places.add(i);
      } catch (InvalidRequestException invalid) {
        answers[i] = failed(sentId(body.get(i)), invalid, path, failures);
      }
    }
    List<Settled> settled = valid.isEmpty() ? List.of() : queue.pull().settleAll(valid);
    for (int k = 0; k < settled.size(); k++) {
      Settled s = settled.get(k);
      String id = s.settlement().id();
      answers[places.get(k)] = switch (s.outcome()) {
        case ACKED -> {
          metrics.acked(queue.name());
          yield Json.object().put("id", id).put("status", 204);
        }
        case RETRYING -> {
          metrics.retried(queue.name());
          yield Json.object().put("id", id).put("status", 204).put("state", "scheduled");
        }
        case DEAD -> {
          metrics.dead(queue.name());
          yield Json.object().put("id", id).put("status", 204).put("state", "dead");
        }
        case REFUSED, FAILED -> failed(id, s.failure(), path, failures);
      };
    }
    ArrayNode answer = Json.array();
    for (ObjectNode a : answers) {
      answer.add(a);
    }
    return Response.ok(answer);
  }

  /** One element of a settle call, checked as the single ack and nack calls check theirs. */
  private static Settlement settlement(JsonNode element, int i) {
    String place = "[" + i + "]";
    Fields fields = settleFields(element, place, place + ".", SETTLE_FIELDS);
    String id = fields.string("id").orElseThrow(() -> new InvalidRequestException(
        fields.name("id"), "is missing; send the job's \"id\" from its claim response"));
    long token = fields.requiredToken("token");
    String outcome = fields.string("outcome").orElseThrow(() -> new InvalidRequestException(
        fields.name("outcome"), "is missing; send \"ack\" (done) or \"nack\" (failed)"));
    OptionalLong retryInMs = fields.integer("retryInMs", 0, JobRequests.MAX_DELAY_MS);
    Optional<String> error = fields.string("error");
    boolean ack = switch (outcome) {
      case "ack" -> true;
      case "nack" -> false;
      default -> throw new InvalidRequestException(
          fields.name("outcome"), "must be \"ack\" or \"nack\"; got " + Fields.describe(fields.raw("outcome")));
    };
    if (ack && (retryInMs.isPresent() || error.isPresent())) {
      throw new InvalidRequestException(
          fields.name(retryInMs.isPresent() ? "retryInMs" : "error"), "is only for \"outcome\": \"nack\"; an ack"
              + " takes the id and the token alone");
    }
    try {
      return ack
          ? Settlement.ack(id, token)
          : Settlement.nack(id, token, retryInMs.isPresent() ? Duration.ofMillis(retryInMs.getAsLong()) : null, error.orElse(null));
    } catch (InvalidRequestException invalid) {
      // why: the core names the argument ("id"); the client needs its place in the array too
      throw new InvalidRequestException(
          place + "." + invalid.field(), invalid.getMessage().substring(invalid.field().length() + 2));
    }
  }

  /** The id an element sent, to label its answer; null when it sent none that is a string. */
  private static String sentId(JsonNode element) {
    JsonNode id = element == null ? null : element.get("id");
    return id != null && id.isTextual() ? id.textValue() : null;
  }

  /** An element's failure, answered as the single call would answer it; each distinct failure logged once. */
  private static ObjectNode failed(String id, Throwable error, String path, Map<Throwable, ErrorMapping.Failure> seen) {
    ErrorMapping.Failure failure = seen.computeIfAbsent(error, e -> ErrorMapping.failure(e, "POST", PathCodec.abbreviate(path)));
    ObjectNode answer = Json.object().put("id", id).put("status", failure.status());
    answer.setAll(failure.body());
    return answer;
  }

  /** {@code POST .../jobs/{id}/lease} {@code {"token","leaseMs"}} → 200 {@code {"leaseUntil"}}. */
  Response extendLease(Request request) throws Exception {
    String id = Queues.checkId(request.path("id"));
    Fields fields = settleFields(request.json(BodyLimits.SMALL_BYTES), LEASE_FIELDS);
    long token = fields.requiredToken("token");
    long leaseMs = fields.requiredInteger("leaseMs", MIN_LEASE_MS, MAX_LEASE_MS);
    JobQueue queue = queues.existing(request.path("queue"));
    Instant until = queue.pull().extendLease(id, token, Duration.ofMillis(leaseMs));
    return Response.ok(Json.object().put("leaseUntil", until.toEpochMilli()));
  }

  /**
   * The body of an ack, nack or lease extension. A body that names the delivery by {@code attempt},
   * as API v1 did before fencing tokens, is refused with what to send instead: an attempt number
   * does not tell one delivery from the next (a job handed back is delivered again on the same
   * attempt), so accepting it would let a former holder settle the job's next delivery.
   */
  private static Fields settleFields(JsonNode body, Set<String> allowed) {
    return settleFields(body, "body", "", allowed);
  }

  private static Fields settleFields(JsonNode body, String place, String prefix, Set<String> allowed) {
    if (body instanceof ObjectNode object && object.has("attempt")) {
      throw new InvalidRequestException(
          prefix + "attempt",
          "is not accepted any more; send {\"token\": \"...\"} with the \"token\" string from the job's"
              + " claim response instead (the attempt number repeats when a job is handed back; a token is"
              + " never reused, and a later delivery's claim refuses an earlier one's token)");
    }
    return Fields.of(body, place, prefix, allowed);
  }
}
