package io.delayq.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.InvalidRequestException;
import io.delayq.JobRequest;
import io.delayq.Misfire;
import io.delayq.Overlap;
import io.delayq.Schedule;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.IntSupplier;

/**
 * Turns the JSON of {@code PUT /v1/queues/{queue}/schedules/{name}} into a {@link Schedule}: {@code
 * {"cron" | "every" | "everyMs", "zone"?, "payload" | "payloadBase64"?, "startAt"?, "endAt"?,
 * "misfire"?, "overlap"?, "paused"?, "maxAttempts"?}}. The request is read whole; the core's own
 * checks (cron syntax, interval range, end after start, ...) give the message of what is refused.
 */
final class ScheduleRequests {
  static final Set<String> FIELDS = Fields.names(
      "cron", "every", "everyMs", "zone", "payload", "payloadBase64", "startAt", "endAt", "misfire", "overlap",
      "paused", "maxAttempts");
  private static final Set<String> MISFIRE_FIELDS = Fields.names("policy", "maxRuns", "graceMs");
  static final long MAX_GRACE_MS = Duration.ofDays(365).toMillis();
  private static final String POLICIES = "\"skip\", \"runOnce\" or \"runUpTo\"";

  private ScheduleRequests() {}

  /**
   * One schedule as read from JSON; {@code maxAttempts} left out is filled in by {@link #resolve}
   * with the queue's stored default, as a job left without one gets it.
   */
  record Parsed(Schedule schedule, boolean maxAttemptsGiven) {
    Schedule resolve(IntSupplier defaultMaxAttempts) {
      return maxAttemptsGiven ? schedule : schedule.withMaxAttempts(defaultMaxAttempts.getAsInt());
    }
  }

  static Parsed parse(String name, JsonNode json) {
    Schedule.checkName(name);
    Fields fields = Fields.of(json, "body", "", FIELDS);
    String cron = fields.string("cron").orElse(null);
    Duration every = every(fields);
    ZoneId zone = zone(fields.string("zone").orElse(null));
    JobRequests.Payload payload = JobRequests.payload(fields, false);
    Instant startAt = fields.has("startAt") ? JobRequests.runAt("startAt", fields.raw("startAt")) : null;
    Instant endAt = fields.has("endAt") ? JobRequests.runAt("endAt", fields.raw("endAt")) : null;
    Misfire misfire = fields.has("misfire") ? misfire(fields.raw("misfire")) : Misfire.skip();
    Overlap overlap = fields.string("overlap").map(ScheduleRequests::overlap).orElse(Overlap.ALLOW);
    boolean paused = fields.bool("paused").orElse(false);
    OptionalLong maxAttempts = fields.integer("maxAttempts", 1, JobRequests.MAX_ATTEMPTS);
    if (cron != null && cron.isBlank()) {
      throw new InvalidRequestException("cron", "is empty; give an expression such as '0 9 * * *' or '@daily'");
    }
    Schedule schedule = new Schedule(name, cron, every, zone, payload.bytes(), payload.json(), startAt, endAt, misfire,
        overlap, paused, maxAttempts.isPresent() ? (int) maxAttempts.getAsLong() : JobRequest.DEFAULT_MAX_ATTEMPTS);
    return new Parsed(schedule, maxAttempts.isPresent());
  }

  /** {@code every} (ISO-8601, e.g. {@code PT5M}) or {@code everyMs}, or null when neither is given. */
  private static Duration every(Fields fields) {
    if (fields.has("every") && fields.has("everyMs")) {
      throw new InvalidRequestException(
          "every", "and everyMs were both given (" + Fields.describe(fields.raw("every")) + ", "
              + Fields.describe(fields.raw("everyMs")) + "); give one of them");
    }
    OptionalLong everyMs =
        fields.integer("everyMs", Schedule.MIN_INTERVAL.toMillis(), Schedule.MAX_INTERVAL.toMillis());
    if (everyMs.isPresent()) {
      return Duration.ofMillis(everyMs.getAsLong());
    }
    Optional<String> text = fields.string("every");
    if (text.isEmpty()) {
      return null;
    }
    try {
      return Duration.parse(text.get());
    } catch (DateTimeParseException e) {
      throw new InvalidRequestException(
          "every", "must be an ISO-8601 duration such as PT30S, PT5M, PT1H or P1D; got "
              + Fields.describe(fields.raw("every")) + " (or give everyMs, in milliseconds)");
    }
  }

  /** A zone id: a region such as {@code Europe/Amsterdam}, {@code UTC} (the default), or an offset. */
  static ZoneId zone(String text) {
    if (text == null || text.equals("UTC") || text.equals("Z")) {
      return ZoneOffset.UTC;
    }
    try {
      return ZoneId.of(text);
    } catch (DateTimeException e) {
      throw new InvalidRequestException(
          "zone", "'" + PathCodec.abbreviate(text) + "' is not a time zone (" + e.getMessage() + "); give a region id"
              + " of the tz database such as Europe/Amsterdam or America/New_York, UTC, or an offset such as +01:00");
    }
  }

  /** The name a view gives a zone: {@code UTC} for the core's default, else the zone's id. */
  static String zoneName(ZoneId zone) {
    return zone.equals(ZoneOffset.UTC) ? "UTC" : zone.getId();
  }

  /** {@code "skip" | "runOnce"}, or {@code {"policy", "maxRuns"?, "graceMs"?}}. */
  private static Misfire misfire(JsonNode value) {
    if (value.isTextual()) {
      return switch (value.textValue()) {
        case "skip" -> Misfire.skip();
        case "runOnce" -> Misfire.runOnce();
        case "runUpTo" -> throw new InvalidRequestException(
            "misfire", "\"runUpTo\" needs a count: give {\"policy\":\"runUpTo\",\"maxRuns\":N} (N from 1 to "
                + Misfire.MAX_RUNS_LIMIT + ")");
        default -> throw new InvalidRequestException(
            "misfire", "must be " + POLICIES + ", or an object {\"policy\",\"maxRuns\"?,\"graceMs\"?}; got "
                + Fields.describe(value));
      };
    }
    if (!value.isObject()) {
      throw new InvalidRequestException(
          "misfire", "must be an object {\"policy\",\"maxRuns\"?,\"graceMs\"?} or one of " + POLICIES + "; got "
              + Fields.describe(value));
    }
    Fields fields = Fields.of(value, "misfire", "misfire.", MISFIRE_FIELDS);
    String policy = fields.string("policy").orElseThrow(() -> new InvalidRequestException(
        "misfire.policy", "is missing; give " + POLICIES));
    Misfire misfire = switch (policy) {
      case "skip" -> {
        fields.integer("maxRuns", 0, 0);
        yield Misfire.skip();
      }
      case "runOnce" -> {
        fields.integer("maxRuns", 1, 1);
        yield Misfire.runOnce();
      }
      case "runUpTo" -> {
        if (!fields.has("maxRuns")) {
          throw new InvalidRequestException(
              "misfire.maxRuns", "is missing; \"runUpTo\" needs how many missed occurrences of one downtime still"
                  + " run, from 1 to " + Misfire.MAX_RUNS_LIMIT);
        }
        yield Misfire.runUpTo((int) fields.requiredInteger("maxRuns", 1, Misfire.MAX_RUNS_LIMIT));
      }
      default -> throw new InvalidRequestException(
          "misfire.policy", "must be " + POLICIES + "; got \"" + PathCodec.abbreviate(policy) + "\"");
    };
    OptionalLong graceMs = fields.integer("graceMs", 0, MAX_GRACE_MS);
    return graceMs.isPresent() ? misfire.withGrace(Duration.ofMillis(graceMs.getAsLong())) : misfire;
  }

  private static Overlap overlap(String value) {
    return switch (value) {
      case "allow" -> Overlap.ALLOW;
      case "skip" -> Overlap.SKIP;
      default -> throw new InvalidRequestException(
          "overlap", "must be \"allow\" (every occurrence runs at its time) or \"skip\" (skip one while the one before"
              + " is still at work); got \"" + PathCodec.abbreviate(value) + "\"");
    };
  }

  /** As the API writes a misfire policy. */
  static String policyName(Misfire.Policy policy) {
    return switch (policy) {
      case SKIP -> "skip";
      case RUN_ONCE -> "runOnce";
      case RUN_UP_TO -> "runUpTo";
    };
  }
}
