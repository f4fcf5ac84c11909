package io.delayq.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.delayq.InvalidRequestException;
import io.delayq.Misfire;
import io.delayq.Schedule;
import io.delayq.ScheduleInfo;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;

/**
 * The JSON of a recurring schedule, as API.md's "Schedules" section gives it: the view the API
 * answers with (the definition, where it stands, and its next occurrences), the body of a {@code PUT}
 * that stores one, and the way back from a view to a {@link ScheduleInfo}. Public for the command
 * line, which prints the same view with {@code --json} and reads it over {@code --server}.
 *
 * <p>Instants in a schedule view are ISO-8601 strings in UTC, not epoch milliseconds as in a job
 * view: a schedule is read by people, next to its cron expression and zone.
 */
public final class ScheduleJson {
  /** How many next occurrences a view lists. */
  public static final int UPCOMING = 5;
  private static final List<String> STATUS_FIELDS = List.of(
      "name", "everyMs", "nextRun", "pendingJobId", "lastRun", "lastJobId", "fired", "skipped", "version", "upcoming",
      "upcomingLocal");

  private ScheduleJson() {}

  /**
   * {@code {"name", "cron" | "every"+"everyMs", "zone", "payload" | "payloadBase64", "startAt", "endAt",
   * "misfire", "overlap", "paused", "maxAttempts", "nextRun", "pendingJobId", "lastRun", "lastJobId",
   * "fired", "skipped", "version", "upcoming", "upcomingLocal"}}.
   */
  public static ObjectNode view(ScheduleInfo info) {
    Schedule schedule = info.schedule();
    ObjectNode view = Json.object().put("name", schedule.name());
    view.setAll(definition(schedule));
    putInstant(view, "nextRun", info.nextRun());
    view.put("pendingJobId", info.pendingJobId());
    putInstant(view, "lastRun", info.lastRun());
    view.put("lastJobId", info.lastJobId())
        .put("fired", info.fired())
        .put("skipped", info.skipped())
        .put("version", info.version());
    ArrayNode upcoming = view.putArray("upcoming");
    ArrayNode local = view.putArray("upcomingLocal");
    for (Instant at : info.upcoming(UPCOMING)) {
      upcoming.add(at.toString());
      local.add(DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(at.atZone(schedule.zone())));
    }
    return view;
  }

  /**
   * The writable fields of a schedule, as a {@code PUT} body takes them; {@code everyMs} beside
   * {@code every} for clients that would rather not parse ISO-8601 durations (a view has both; a
   * body gives one).
   */
  public static ObjectNode definition(Schedule schedule) {
    ObjectNode body = Json.object();
    if (schedule.cron() != null) {
      body.put("cron", schedule.cron());
    } else {
      body.put("every", schedule.every().toString()).put("everyMs", schedule.every().toMillis());
    }
    body.put("zone", ScheduleRequests.zoneName(schedule.zone()));
    Views.putPayload(body, schedule.payload(), schedule.payloadIsJson());
    putInstant(body, "startAt", schedule.startAt());
    putInstant(body, "endAt", schedule.endAt());
    Misfire misfire = schedule.misfire();
    body.putObject("misfire")
        .put("policy", ScheduleRequests.policyName(misfire.policy()))
        .put("maxRuns", misfire.maxRuns())
        .put("graceMs", misfire.grace().toMillis());
    body.put("overlap", schedule.overlap().name().toLowerCase(Locale.ROOT))
        .put("paused", schedule.paused())
        .put("maxAttempts", schedule.maxAttempts());
    return body;
  }

  /** {@link #definition} without {@code everyMs}, and without {@code maxAttempts} unless given: a PUT body. */
  public static ObjectNode putBody(Schedule schedule, boolean withMaxAttempts) {
    ObjectNode body = definition(schedule);
    body.remove("everyMs");
    if (!withMaxAttempts) {
      body.remove("maxAttempts");
    }
    return body;
  }

  /**
   * A zone as the API reads one: a tz database region, {@code UTC} (the core's default), or an offset.
   *
   * @throws InvalidRequestException (field {@code zone}) when it is none of these
   */
  public static java.time.ZoneId zone(String text) {
    return ScheduleRequests.zone(text);
  }

  /** How the API writes a zone: {@code UTC} for the core's default, else the zone's id. */
  public static String zoneName(java.time.ZoneId zone) {
    return ScheduleRequests.zoneName(zone);
  }

  /**
   * A view read back, as {@link #view} wrote it.
   *
   * @throws IllegalArgumentException when it is not such a view
   */
  public static ScheduleInfo fromView(JsonNode view) {
    if (view == null || !view.isObject() || !view.path("name").isTextual()) {
      throw new IllegalArgumentException("not a schedule view: " + view);
    }
    ObjectNode definition = ((ObjectNode) view).deepCopy();
    definition.remove(STATUS_FIELDS);
    try {
      Schedule schedule = ScheduleRequests.parse(view.get("name").textValue(), definition).schedule();
      return new ScheduleInfo(
          schedule,
          instant(view.get("nextRun")),
          text(view.get("pendingJobId")),
          instant(view.get("lastRun")),
          text(view.get("lastJobId")),
          view.path("fired").asLong(),
          view.path("skipped").asLong(),
          view.path("version").asLong());
    } catch (InvalidRequestException | DateTimeParseException e) {
      throw new IllegalArgumentException("not a schedule view (" + e.getMessage() + "): " + view, e);
    }
  }

  private static void putInstant(ObjectNode node, String field, Instant instant) {
    if (instant == null) {
      node.putNull(field);
    } else {
      node.put(field, instant.toString());
    }
  }

  private static Instant instant(JsonNode value) {
    return value == null || value.isNull() ? null : Instant.parse(value.asText());
  }

  private static String text(JsonNode value) {
    return value == null || value.isNull() ? null : value.asText();
  }
}
