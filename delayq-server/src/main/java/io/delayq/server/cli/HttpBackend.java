package io.delayq.server.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.delayq.AdoptionReport;
import io.delayq.JobInfo;
import io.delayq.SortedSetAdoption;
import io.delayq.SortedSetBridge;
import io.delayq.server.forward.ForwardSpec;
import io.delayq.JobState;
import io.delayq.QueueStats;
import io.delayq.ScheduledJob;
import io.delayq.Schedule;
import io.delayq.ScheduleInfo;
import io.delayq.server.http.ScheduleJson;
import java.io.IOException;
import io.delayq.server.http.PathCodec;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The commands done through a running {@code delayq serve}, over the HTTP API v1 exactly as
 * {@code delayq-server/API.md} describes it: paths, JSON fields, status codes and the {@code
 * {"error","detail"}} body, whose detail becomes the message on stderr.
 */
final class HttpBackend implements Backend {
  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
  private static final ObjectMapper JSON = new ObjectMapper();
  static final int QUEUES_PER_PAGE = 1000;
  /** A server that kept sending a next page would be broken; stop after a million queues. */
  private static final int MAX_QUEUE_PAGES = 1000;
  private static final Pattern NEXT_LINK = Pattern.compile("<([^>]*)>\\s*;\\s*rel=\"?next\"?");

  private final String baseUrl;
  private final String token;
  private final HttpClient http;

  HttpBackend(String serverUrl, String token) {
    this.baseUrl = checkUrl(serverUrl);
    this.token = token;
    this.http = HttpClient.newBuilder()
        .connectTimeout(CONNECT_TIMEOUT)
        .followRedirects(HttpClient.Redirect.NEVER)
        .build();
  }

  private static String checkUrl(String url) {
    String trimmed = url.strip();
    while (trimmed.endsWith("/")) {
      trimmed = trimmed.substring(0, trimmed.length() - 1);
    }
    try {
      URI uri = new URI(trimmed);
      if (("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) && uri.getHost() != null) {
        return trimmed;
      }
    } catch (java.net.URISyntaxException e) {
      // reported below
    }
    throw CliException.usage("--server '" + url + "' is not an http:// or https:// URL;"
        + " write it like http://127.0.0.1:7070, or pass --redis to talk to Redis directly");
  }

  @Override
  public String target() {
    return baseUrl;
  }

  @Override
  public ScheduledJob schedule(String queue, Enqueue request) {
    ObjectNode body = JSON.createObjectNode();
    if (request.id() != null) {
      body.put("id", request.id());
    }
    String text = utf8(request.payload());
    if (text != null) {
      body.put("payload", text);
    } else {
      body.put("payloadBase64", Base64.getEncoder().encodeToString(request.payload()));
    }
    if (request.delay() != null) {
      body.put("delayMs", request.delay().toMillis());
    }
    if (request.runAt() != null) {
      body.put("runAt", request.runAt().toEpochMilli());
    }
    if (request.maxAttempts() != null) {
      body.put("maxAttempts", request.maxAttempts());
    }
    if (request.keep()) {
      body.put("onDuplicate", "keep");
    }
    if (request.partitions() != null) {
      // why: PUT creates the queue with that count, or refuses (409) one that has another
      send("PUT", queuePath(queue), JSON.createObjectNode().put("partitions", request.partitions()), null);
    }
    JsonNode answer = send("POST", queuePath(queue) + "/jobs", body, null);
    String outcome = answer.path("outcome").asText("created");
    return new ScheduledJob(answer.path("id").asText(), instant(answer.get("runAt")),
        ScheduledJob.Outcome.valueOf(outcome.toUpperCase(Locale.ROOT)));
  }

  @Override
  public JobInfo get(String queue, String id) {
    return jobInfo(onJob(queue, "GET", jobPath(queue, id), null, null));
  }

  @Override
  public void cancel(String queue, String id) {
    onJob(queue, "DELETE", jobPath(queue, id), null, Format.activeHint(queue, id));
  }

  @Override
  public ScheduledJob reschedule(String queue, String id, Duration delay, Instant runAt) {
    ObjectNode body = JSON.createObjectNode();
    if (delay != null) {
      body.put("delayMs", delay.toMillis());
    } else {
      body.put("runAt", runAt.toEpochMilli());
    }
    JsonNode answer = onJob(queue, "PATCH", jobPath(queue, id), body, Format.activeHint(queue, id));
    return new ScheduledJob(answer.path("id").asText(id), instant(answer.get("runAt")), ScheduledJob.Outcome.REPLACED);
  }

  @Override
  public List<QueueStats> stats() {
    List<QueueStats> all = new ArrayList<>();
    String page = "/v1/queues?limit=" + QUEUES_PER_PAGE;
    // why: the list is paged; the server names each next page in a Link header (RFC 8288)
    for (int pages = 0; page != null && pages < MAX_QUEUE_PAGES; pages++) {
      Answer answer = exchange("GET", page, null, null);
      for (JsonNode node : answer.json()) {
        all.add(queueStats(node));
      }
      page = nextPage(answer.response().headers().firstValue("Link").orElse(null));
    }
    all.sort((a, b) -> a.queue().compareTo(b.queue()));
    return all;
  }

  /** The path of the {@code rel="next"} target of a Link header, or null. */
  static String nextPage(String link) {
    if (link == null) {
      return null;
    }
    Matcher next = NEXT_LINK.matcher(link);
    return next.find() && next.group(1).startsWith("/") ? next.group(1) : null;
  }

  @Override
  public QueueStats stats(String queue) {
    return queueStats(onQueue(queue, "GET", queuePath(queue), null, null));
  }

  @Override
  public JsonNode forwarding(String queue) {
    JsonNode forward = onQueue(queue, "GET", queuePath(queue), null, null).get("forward");
    return forward == null || forward.isNull() ? null : forward;
  }

  @Override
  public void setForwarding(String queue, ForwardSpec spec) {
    com.fasterxml.jackson.databind.node.ObjectNode body = JSON.createObjectNode();
    if (spec == null) {
      body.putNull("forward");
    } else {
      body.set("forward", spec.toJson());
    }
    send("PUT", queuePath(queue), body, null);
  }

  /**
   * {@code GET /v1/queues/{queue}/schedules?limit=N&cursor=C} → {@code {"schedules":[views],
   * "nextCursor"}}; a server may end a page early to keep its answer near 1 MiB.
   */
  @Override
  public SchedulePage listSchedules(String queue, String cursor, int limit) {
    String call = "GET " + queuePath(queue) + "/schedules";
    String query = "?limit=" + limit + (cursor == null ? "" : "&cursor=" + segment(cursor));
    JsonNode answer = onQueue(queue, "GET", queuePath(queue) + "/schedules" + query, null, null);
    if (answer == null || !answer.path("schedules").isArray()) {
      throw unexpected(call, "no \"schedules\" array", null);
    }
    List<ScheduleInfo> schedules = new ArrayList<>();
    for (JsonNode view : answer.get("schedules")) {
      schedules.add(scheduleInfo(call, view));
    }
    JsonNode next = answer.path("nextCursor");
    if (!next.isMissingNode() && !next.isNull() && !next.isTextual()) {
      throw unexpected(call, "\"nextCursor\" is neither a string nor null", null);
    }
    return new SchedulePage(schedules, next.isTextual() ? next.asText() : null);
  }

  @Override
  public ScheduleInfo getSchedule(String queue, String name) {
    return scheduleInfo("GET " + schedulePath(queue, name), onSchedule(queue, name, "GET", "", null));
  }

  @Override
  public ScheduleInfo setSchedule(String queue, Schedule schedule, boolean maxAttemptsGiven) {
    String path = schedulePath(queue, schedule.name());
    JsonNode body = ScheduleJson.putBody(schedule, maxAttemptsGiven);
    return scheduleInfo("PUT " + path, send("PUT", path, body, null));
  }

  @Override
  public void removeSchedule(String queue, String name) {
    onSchedule(queue, name, "DELETE", "", null);
  }

  @Override
  public ScheduleInfo pauseSchedule(String queue, String name) {
    return scheduleInfo("POST " + schedulePath(queue, name) + "/pause", onSchedule(queue, name, "POST", "/pause", null));
  }

  @Override
  public ScheduleInfo resumeSchedule(String queue, String name) {
    return scheduleInfo("POST " + schedulePath(queue, name) + "/resume", onSchedule(queue, name, "POST", "/resume", null));
  }

  @Override
  public ScheduledJob runScheduleNow(String queue, String name) {
    JsonNode answer = onSchedule(queue, name, "POST", "/run", null);
    return new ScheduledJob(answer.path("id").asText(), instant(answer.get("runAt")), ScheduledJob.Outcome.CREATED);
  }

  private static String schedulePath(String queue, String name) {
    return queuePath(queue) + "/schedules/" + segment(name);
  }

  /** A call on one schedule: a 404 is the schedule's, unless the queue itself is missing. */
  private JsonNode onSchedule(String queue, String name, String method, String suffix, JsonNode body) {
    try {
      return send(method, schedulePath(queue, name) + suffix, body, null);
    } catch (CliException e) {
      if (e.exitCode() != ExitCodes.NOT_FOUND) {
        throw e;
      }
      throw CliException.notFound(queueExists(queue) ? Format.noSuchSchedule(queue, name) : Format.noSuchQueue(queue, baseUrl));
    }
  }

  private ScheduleInfo scheduleInfo(String call, JsonNode view) {
    try {
      return ScheduleJson.fromView(view);
    } catch (IllegalArgumentException e) {
      throw unexpected(call, e.getMessage(), e);
    }
  }

  private CliException unexpected(String call, String why, Exception cause) {
    return new CliException(ExitCodes.FAILED, "unexpected answer from " + baseUrl + " to " + call + ": " + why
        + "; is the server the same version as this command?", cause);
  }

  @Override
  public AdoptionReport importSortedSet(String queue, SortedSetAdoption options) {
    throw adoptNeedsRedis();
  }

  @Override
  public SortedSetBridge adopt(String queue, SortedSetAdoption options) {
    throw adoptNeedsRedis();
  }

  private static CliException adoptNeedsRedis() {
    return new CliException(ExitCodes.USAGE, "adopt works on the Redis that holds the sorted set: give --redis URL"
        + " (or set REDIS_URL) instead of --server");
  }

  @Override
  public void pause(String queue) {
    onQueue(queue, "POST", queuePath(queue) + "/pause", null, null);
  }

  @Override
  public void resume(String queue) {
    onQueue(queue, "POST", queuePath(queue) + "/resume", null, null);
  }

  @Override
  public List<JobInfo> deadJobs(String queue, int limit) {
    List<JobInfo> jobs = new ArrayList<>();
    for (JsonNode node : onQueue(queue, "GET", queuePath(queue) + "/dead?limit=" + limit, null, null)) {
      jobs.add(jobInfo(node));
    }
    return jobs;
  }

  @Override
  public void requeueDead(String queue, String id) {
    onJob(queue, "POST", queuePath(queue) + "/dead/" + segment(id) + "/requeue", null, null);
  }

  @Override
  public void deleteDead(String queue, String id) {
    onJob(queue, "DELETE", queuePath(queue) + "/dead/" + segment(id), null, null);
  }

  /** {@code GET /v1/queues/{queue}/jobs?state=…&cursor=…&limit=N} → {@code {"jobs":[…],"nextCursor"}}. */
  @Override
  public JobPage listJobs(String queue, ListedState state, String cursor, int limit) {
    String query = "?state=" + state.label() + (cursor == null ? "" : "&cursor=" + segment(cursor)) + "&limit=" + limit;
    JsonNode answer = onQueue(queue, "GET", queuePath(queue) + "/jobs" + query, null, null);
    try {
      return jobPage(answer);
    } catch (RuntimeException e) {
      throw new CliException(ExitCodes.FAILED, "unexpected answer from " + baseUrl + " to GET " + queuePath(queue)
          + "/jobs: " + e.getMessage() + "; is the server the same version as this command?", e);
    }
  }

  /** {@code DELETE /v1/queues/{queue}?force=…} → {@code {"queue","deletedJobs"}}; 409 while jobs are held. */
  @Override
  public long deleteQueue(String queue, boolean force) {
    String hint = "`delayq delete-queue " + queue + " --force` deletes it anyway, with the jobs workers hold now";
    JsonNode answer = onQueue(queue, "DELETE", queuePath(queue) + "?force=" + force, null, force ? null : hint);
    if (answer == null || !answer.path("deletedJobs").canConvertToLong()) {
      throw new CliException(ExitCodes.FAILED, "unexpected answer from " + baseUrl + " to DELETE " + queuePath(queue)
          + ": " + answer + " (no \"deletedJobs\"); the queue may be deleted: `delayq stats " + queue + "` tells");
    }
    return answer.path("deletedJobs").asLong();
  }

  /** A page as the HTTP API writes it. */
  static JobPage jobPage(JsonNode answer) {
    JsonNode jobs = answer.get("jobs");
    if (jobs == null || !jobs.isArray()) {
      throw new IllegalArgumentException("no \"jobs\" array");
    }
    List<JobInfo> page = new ArrayList<>();
    jobs.forEach(job -> page.add(jobInfo(job)));
    JsonNode next = answer.get("nextCursor");
    return new JobPage(page, next == null || next.isNull() ? null : next.asText());
  }

  @Override
  public void close() {
    // HttpClient holds no resources that outlive the process on Java 17
  }

  private static String queuePath(String queue) {
    return "/v1/queues/" + segment(queue);
  }

  private static String jobPath(String queue, String id) {
    return queuePath(queue) + "/jobs/" + segment(id);
  }

  /** One path segment, percent-encoded as the server decodes it. */
  static String segment(String value) {
    return PathCodec.encodeSegment(value);
  }

  /** A call on a queue: a 404 means there is no such queue, and says so the CLI way. */
  private JsonNode onQueue(String queue, String method, String path, JsonNode body, String conflictHint) {
    try {
      return send(method, path, body, conflictHint);
    } catch (CliException e) {
      throw e.exitCode() == ExitCodes.NOT_FOUND ? CliException.notFound(Format.noSuchQueue(queue, baseUrl)) : e;
    }
  }

  /** A call on one job: a 404 is the job's, unless the queue itself is missing. */
  private JsonNode onJob(String queue, String method, String path, JsonNode body, String conflictHint) {
    try {
      return send(method, path, body, conflictHint);
    } catch (CliException e) {
      if (e.exitCode() == ExitCodes.NOT_FOUND && !queueExists(queue)) {
        throw CliException.notFound(Format.noSuchQueue(queue, baseUrl));
      }
      throw e;
    }
  }

  private boolean queueExists(String queue) {
    try {
      send("GET", queuePath(queue), null, null);
      return true;
    } catch (CliException e) {
      // why: only a clear "no such queue" changes the message; any other failure keeps the job's 404
      return e.exitCode() != ExitCodes.NOT_FOUND;
    }
  }

  /**
   * Sends one request and returns the JSON answer ({@code null} for 204); any other outcome becomes
   * a {@link CliException} with the exit code API.md gives its status.
   *
   * @param conflictHint appended to a 409's detail, or null
   */
  private JsonNode send(String method, String path, JsonNode body, String conflictHint) {
    return exchange(method, path, body, conflictHint).json();
  }

  /** A successful answer: its JSON body (null for 204) and the response it came in. */
  private record Answer(JsonNode json, HttpResponse<String> response) {}

  private Answer exchange(String method, String path, JsonNode body, String conflictHint) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl + path))
        .timeout(REQUEST_TIMEOUT)
        .header("Accept", "application/json");
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    if (body != null) {
      request.header("Content-Type", "application/json");
      request.method(method, HttpRequest.BodyPublishers.ofString(body.toString(), StandardCharsets.UTF_8));
    } else {
      request.method(method, HttpRequest.BodyPublishers.noBody());
    }
    HttpResponse<String> response;
    try {
      response = http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    } catch (HttpConnectTimeoutException e) {
      throw unreachable("no connection within " + CONNECT_TIMEOUT.toSeconds() + " s", e);
    } catch (HttpTimeoutException e) {
      String what = "the delayq server at " + baseUrl + " did not answer " + method + " " + path + " within "
          + REQUEST_TIMEOUT.toSeconds() + " s; check its log and its Redis";
      // why: a request that was sent and not answered may have been carried out; a read changes nothing
      throw "GET".equals(method)
          ? new CliException(ExitCodes.FAILED, what, e)
          : new CliException(ExitCodes.OUTCOME_UNKNOWN, Format.outcomeUnknown(what), e);
    } catch (ConnectException e) {
      throw unreachable("connection refused", e);
    } catch (IOException e) {
      throw unreachable(e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CliException(ExitCodes.FAILED, "interrupted while waiting for " + baseUrl, e);
    }
    int status = response.statusCode();
    if (status == 204) {
      return new Answer(null, response);
    }
    JsonNode answer = parse(response.body());
    if (status >= 200 && status < 300 && answer != null) {
      return new Answer(answer, response);
    }
    throw failure(method, path, status, answer, response, conflictHint);
  }

  private CliException unreachable(String why, Exception cause) {
    return new CliException(ExitCodes.FAILED, "cannot reach delayq server at " + baseUrl + ": " + why
        + ". Start it with `java -jar delayq-server.jar serve`, or pass --redis to talk to Redis directly", cause);
  }

  private CliException failure(
      String method, String path, int status, JsonNode answer, HttpResponse<String> response, String conflictHint) {
    boolean delayqError = answer != null && answer.hasNonNull("error");
    if (!delayqError) {
      String body = response.body() == null ? "" : response.body().strip();
      return new CliException(ExitCodes.FAILED, "unexpected answer from " + baseUrl + " to " + method + " " + path
          + ": HTTP " + status + " " + Format.abbreviate(body.isEmpty() ? "(no body)" : body, 80)
          + "; is --server (or DELAYQ_SERVER) the URL of a delayq server?");
    }
    String detail = answer.path("detail").asText(answer.path("error").asText());
    return switch (status) {
      case 401 -> new CliException(ExitCodes.UNAUTHORIZED, token == null
          ? "the delayq server at " + baseUrl + " needs a token: pass --token, --token-file or set DELAYQ_TOKEN"
              + " to the token it was started with (" + detail + ")"
          : "the delayq server at " + baseUrl + " refused the token: " + detail
              + ". Pass the token it was started with (--token, --token-file or DELAYQ_TOKEN)");
      case 400, 413 -> CliException.usage(detail);
      case 404 -> CliException.notFound(detail);
      case 405 -> new CliException(ExitCodes.FAILED, "the delayq server at " + baseUrl + " does not offer " + method
          + " " + path.replaceFirst("\\?.*", "") + " (" + detail + "); it is probably older than this command:"
          + " upgrade it");
      case 409 -> new CliException(ExitCodes.CONFLICT, conflictHint == null ? detail : detail + "; " + conflictHint);
      case 504 -> "outcome_unknown".equals(answer.path("error").asText())
          ? new CliException(ExitCodes.OUTCOME_UNKNOWN,
              Format.outcomeUnknown("the delayq server at " + baseUrl + " could not confirm " + method + " " + path
                  + ": " + detail))
          : new CliException(ExitCodes.FAILED, "the delayq server at " + baseUrl + " failed " + method + " "
              + path + " with HTTP 504: " + detail);
      case 503 -> new CliException(ExitCodes.FAILED, "shutting_down".equals(answer.path("error").asText())
          ? "the delayq server at " + baseUrl + " is shutting down: " + detail
          : "the delayq server at " + baseUrl + " cannot reach its Redis: " + detail);
      default -> new CliException(ExitCodes.FAILED, "the delayq server at " + baseUrl + " failed " + method + " "
          + path + " with HTTP " + status + ": " + detail);
    };
  }

  private static JsonNode parse(String body) {
    if (body == null || body.isBlank()) {
      return null;
    }
    try {
      return JSON.readTree(body);
    } catch (JsonProcessingException e) {
      return null;
    }
  }

  /** The text if the bytes are valid UTF-8, else null. */
  static String utf8(byte[] bytes) {
    try {
      return StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }

  private static Instant instant(JsonNode millis) {
    return millis == null || millis.isNull() ? null : Instant.ofEpochMilli(millis.asLong());
  }

  /** A job view's state; {@code due} (a listing's word for a scheduled job whose time has come) is scheduled. */
  private static JobState state(String text) {
    String name = text.toUpperCase(Locale.ROOT);
    if (name.equals("DUE")) {
      return JobState.SCHEDULED;
    }
    try {
      return JobState.valueOf(name);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("unknown job state '" + text + "'", e);
    }
  }

  private static QueueStats queueStats(JsonNode node) {
    return new QueueStats(
        node.path("queue").asText(),
        node.path("partitions").asInt(),
        node.path("scheduled").asLong(),
        node.path("due").asLong(),
        node.path("active").asLong(),
        node.path("expired").asLong(),
        node.path("dead").asLong(),
        node.path("paused").asBoolean());
  }

  private static JobInfo jobInfo(JsonNode node) {
    JsonNode value = node.get("payload");
    // a payload scheduled as a JSON value (not a string) comes as that value: its text is the payload
    boolean json = value != null && !value.isTextual() && !value.isMissingNode();
    byte[] payload = node.hasNonNull("payloadBase64")
        ? Base64.getDecoder().decode(node.get("payloadBase64").asText())
        : json ? value.toString().getBytes(StandardCharsets.UTF_8)
        : node.path("payload").asText("").getBytes(StandardCharsets.UTF_8);
    return new JobInfo(
        node.path("id").asText(),
        state(node.path("state").asText()),
        instant(node.get("runAt")),
        instant(node.get("leaseUntil")),
        instant(node.get("deadAt")),
        node.path("attempts").asInt(),
        node.path("maxAttempts").asInt(),
        instant(node.get("createdAt")),
        payload,
        node.hasNonNull("lastError") ? node.get("lastError").asText() : null,
        json);
  }
}
