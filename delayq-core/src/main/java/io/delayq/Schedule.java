package io.delayq;

import io.delayq.internal.Rules;
import io.delayq.internal.cron.Cron;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A recurring schedule: a job created once per occurrence of a cron expression or of a fixed
 * interval. Build one with {@link #cron(String, String)} or {@link #every(String, Duration)} and the
 * {@code with…} methods, and store it with {@link Schedules#set}; every value is checked here.
 *
 * <pre>{@code
 * queue.schedules().set(Schedule.cron("daily-digest", "0 9 * * *")
 *     .inZone(ZoneId.of("Europe/Amsterdam"))
 *     .withPayload("{\"kind\":\"digest\"}"));
 * }</pre>
 *
 * <p>Each occurrence is an ordinary job of the queue, with the id {@code <name>@<due instant>} (see
 * {@link Schedules}), so it has leases, retries, dead letters and metrics like any job.
 *
 * @param name 1 to 128 characters of {@code A-Z a-z 0-9 . _ : -}; unique within the queue
 * @param cron a cron expression (5 or 6 fields, or a macro such as {@code @daily}), or {@code null}
 *     for an interval schedule
 * @param every the interval of an interval schedule (1 second to 1000 days), or {@code null}
 * @param zone the time zone the cron expression is read in; an interval follows elapsed time and
 *     ignores it. Daylight saving: see docs/SCHEDULES.md
 * @param payload the bytes each occurrence's job carries
 * @param payloadIsJson whether the payload is JSON text
 * @param startAt no occurrence before this instant, or {@code null}; an interval schedule counts
 *     its occurrences from it (from the time it was first stored without one)
 * @param endAt no occurrence after this instant, or {@code null}
 * @param misfire what happens to occurrences that could not run on time
 * @param overlap whether an occurrence runs while the one before it is still at work
 * @param paused whether occurrences are created; a paused schedule keeps its place in the queue's
 *     listing and resumes at its next occurrence after {@link Schedules#resume}
 * @param maxAttempts how many times each occurrence's job is tried before it goes dead
 * @since 0.4.0
 */
public record Schedule(
    String name,
    String cron,
    Duration every,
    ZoneId zone,
    byte[] payload,
    boolean payloadIsJson,
    Instant startAt,
    Instant endAt,
    Misfire misfire,
    Overlap overlap,
    boolean paused,
    int maxAttempts) {

  public static final int MAX_NAME_LENGTH = 128;
  public static final Duration MIN_INTERVAL = Duration.ofSeconds(1);
  public static final Duration MAX_INTERVAL = Duration.ofDays(1000);
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._:\\-]{1,128}");

  public Schedule {
    checkName(name);
    if ((cron == null) == (every == null)) {
      throw new InvalidRequestException(
          "cron/every",
          cron == null
              ? "neither was given; give a cron expression or an interval"
              : "both were given (cron '" + cron + "', every " + every + "); give one of them");
    }
    if (cron != null) {
      cron = Cron.parse(cron).expression();
    }
    if (every != null && (every.compareTo(MIN_INTERVAL) < 0 || every.compareTo(MAX_INTERVAL) > 0)) {
      throw new InvalidRequestException(
          "every", "must be at least 1 second and at most 1000 days; got " + every);
    }
    if (every != null && every.getNano() % 1_000_000 != 0) {
      throw new InvalidRequestException("every", "must be whole milliseconds; got " + every);
    }
    Objects.requireNonNull(zone, "zone");
    if (payload == null) {
      throw new InvalidRequestException(
          "payload", "is missing; pass an empty byte array for a schedule whose jobs need no payload");
    }
    payload = payload.clone();
    if (startAt != null) {
      Rules.runAtMillis(startAt);
    }
    if (endAt != null) {
      Rules.runAtMillis(endAt);
      if (startAt != null && !endAt.isAfter(startAt)) {
        throw new InvalidRequestException(
            "endAt", "is not after startAt (" + startAt + " .. " + endAt + "); the schedule would never fire");
      }
    }
    Objects.requireNonNull(misfire, "misfire");
    Objects.requireNonNull(overlap, "overlap");
    Rules.checkMaxAttempts(maxAttempts);
  }

  /** A schedule that fires at each occurrence of a cron expression, read in UTC unless {@link #inZone}. */
  public static Schedule cron(String name, String expression) {
    if (expression == null || expression.isBlank()) {
      throw new InvalidRequestException("cron", "is empty; give an expression such as '0 9 * * *' or '@daily'");
    }
    return new Schedule(name, expression, null, ZoneOffset.UTC, new byte[0], false, null, null,
        Misfire.skip(), Overlap.ALLOW, false, JobRequest.DEFAULT_MAX_ATTEMPTS);
  }

  /** A schedule that fires every {@code interval} of elapsed time. */
  public static Schedule every(String name, Duration interval) {
    if (interval == null) {
      throw new InvalidRequestException("every", "is missing; give an interval of at least 1 second");
    }
    return new Schedule(name, null, interval, ZoneOffset.UTC, new byte[0], false, null, null,
        Misfire.skip(), Overlap.ALLOW, false, JobRequest.DEFAULT_MAX_ATTEMPTS);
  }

  /** Checks a schedule name, as the constructor does. */
  public static String checkName(String name) {
    if (".".equals(name) || "..".equals(name)) {
      // why: it reads as a path step in URLs: a client would resolve /schedules/.. to the queue itself
      throw new InvalidRequestException(
          "name", "'" + name + "' is not allowed: it reads as a path step in URLs; use other characters too");
    }
    if (name == null || !NAME.matcher(name).matches()) {
      throw new InvalidRequestException(
          "name",
          (name == null ? "is missing" : "'" + abbreviate(name) + "' is not a valid schedule name")
              + "; use 1 to 128 characters of A-Z a-z 0-9 . _ : -");
    }
    return name;
  }

  public Schedule inZone(ZoneId zone) {
    if (zone == null) {
      throw new InvalidRequestException("zone", "is missing; give a zone such as Europe/Amsterdam, or UTC");
    }
    return new Schedule(name, cron, every, zone, payload, payloadIsJson, startAt, endAt, misfire, overlap, paused, maxAttempts);
  }

  public Schedule withPayload(byte[] payload) {
    return new Schedule(name, cron, every, zone, payload, false, startAt, endAt, misfire, overlap, paused, maxAttempts);
  }

  /** A UTF-8 text payload. */
  public Schedule withPayload(String payload) {
    Objects.requireNonNull(payload, "payload");
    return withPayload(payload.getBytes(StandardCharsets.UTF_8));
  }

  /** A payload that is JSON text, handed out over HTTP as that JSON value. */
  public Schedule withJsonPayload(String json) {
    Objects.requireNonNull(json, "json");
    return new Schedule(name, cron, every, zone, json.getBytes(StandardCharsets.UTF_8), true, startAt, endAt, misfire,
        overlap, paused, maxAttempts);
  }

  public Schedule startingAt(Instant startAt) {
    return new Schedule(name, cron, every, zone, payload, payloadIsJson, startAt, endAt, misfire, overlap, paused, maxAttempts);
  }

  public Schedule endingAt(Instant endAt) {
    return new Schedule(name, cron, every, zone, payload, payloadIsJson, startAt, endAt, misfire, overlap, paused, maxAttempts);
  }

  public Schedule withMisfire(Misfire misfire) {
    return new Schedule(name, cron, every, zone, payload, payloadIsJson, startAt, endAt, misfire, overlap, paused, maxAttempts);
  }

  public Schedule withOverlap(Overlap overlap) {
    return new Schedule(name, cron, every, zone, payload, payloadIsJson, startAt, endAt, misfire, overlap, paused, maxAttempts);
  }

  public Schedule withPaused(boolean paused) {
    return new Schedule(name, cron, every, zone, payload, payloadIsJson, startAt, endAt, misfire, overlap, paused, maxAttempts);
  }

  public Schedule withMaxAttempts(int maxAttempts) {
    return new Schedule(name, cron, every, zone, payload, payloadIsJson, startAt, endAt, misfire, overlap, paused, maxAttempts);
  }

  @Override
  public byte[] payload() {
    return payload.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Schedule s
        && name.equals(s.name)
        && Objects.equals(cron, s.cron)
        && Objects.equals(every, s.every)
        && zone.equals(s.zone)
        && Arrays.equals(payload, s.payload)
        && payloadIsJson == s.payloadIsJson
        && Objects.equals(startAt, s.startAt)
        && Objects.equals(endAt, s.endAt)
        && misfire.equals(s.misfire)
        && overlap == s.overlap
        && paused == s.paused
        && maxAttempts == s.maxAttempts;
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, cron, every, zone, Arrays.hashCode(payload), startAt, endAt, misfire, overlap, paused);
  }

  @Override
  public String toString() {
    return "Schedule[" + name + ", " + (cron != null ? "cron '" + cron + "' in " + zone : "every " + every)
        + (paused ? ", paused" : "") + "]";
  }

  private static String abbreviate(String s) {
    return s.length() <= 40 ? s : s.substring(0, 40) + "…";
  }
}
