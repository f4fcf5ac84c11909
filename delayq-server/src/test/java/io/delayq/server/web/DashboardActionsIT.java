package io.delayq.server.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayq.JobInfo;
import io.delayq.JobQueue;
import io.delayq.JobRequest;
import io.delayq.JobState;
import io.delayq.LeasedJob;
import io.delayq.server.http.HttpSettings;
import io.delayq.server.web.DashboardServer.Answer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The queue detail, job and find pages, and every action, each checked in delayq-core's own
 * state; a read-only session refused for each; hostile ids, times and payloads.
 */
class DashboardActionsIT {
  private static final String TOKEN = "full-" + UUID.randomUUID();
  private static final String READ_ONLY = "ro-" + UUID.randomUUID();
  private static DashboardServer server;
  private static String full;
  private static String readOnly;

  @BeforeAll
  static void start() {
    server = DashboardServer.start(HttpSettings.of("127.0.0.1", 0, TOKEN).withReadOnlyToken(READ_ONLY));
    full = server.login(TOKEN);
    readOnly = server.login(READ_ONLY);
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  private static JobQueue queue(String name) {
    return DashboardServer.delayq().queue(name);
  }

  private static void schedule(String queue, String id, Duration in) {
    queue(queue).schedule(JobRequest.of("p-" + id).withId(id).withDelay(in));
  }

  /** A job made dead: claimed and buried with {@code error}. */
  private static void dead(String queue, String id, String error) {
    queue(queue).schedule(JobRequest.of("d").withId(id).withMaxAttempts(1));
    for (int i = 0; i < 50; i++) {
      for (LeasedJob job : queue(queue).pull().claim(100, Duration.ofMinutes(1))) {
        queue(queue).pull().bury(job.id(), job.token(), error);
      }
      if (queue(queue).get(id).map(JobInfo::state).orElse(null) == JobState.DEAD) {
        return;
      }
    }
    throw new AssertionError("job " + id + " did not become dead");
  }

  private static String path(String... segments) {
    StringBuilder out = new StringBuilder();
    for (String s : segments) {
      out.append('/').append(PageContext.segment(s));
    }
    return out.toString();
  }

  private static List<String> rows(Answer page) {
    Matcher m = Pattern.compile("<tr data-row=\"([^\"]*)\"").matcher(page.body());
    List<String> rows = new java.util.ArrayList<>();
    while (m.find()) {
      rows.add(m.group(1));
    }
    return rows;
  }

  @Test
  void theQueuePageShowsEachStateWithItsColumnsAndPagesByCursor() {
    String q = DashboardServer.newQueue("dash-detail");
    for (int i = 0; i < 54; i++) {
      schedule(q, String.format("job-%03d", i), Duration.ofMinutes(10 + i));
    }
    Answer first = server.get("/queues/" + q, full);
    assertThat(first.status()).as(first.toString()).isEqualTo(200);
    assertThat(first.body()).contains("data-page=\"queue\"", "data-table=\"jobs\"", "data-count=\"scheduled\">55<",
        "data-action=\"pause\"", "data-action=\"cancel\"", "data-action=\"run-now\"", "data-action=\"reschedule\"");
    assertThat(rows(first)).hasSize(50).startsWith("job-000", "job-001");
    Matcher next = Pattern.compile("<a rel=\"next\" href=\"([^\"]+)\"").matcher(first.body());
    assertThat(next.find()).isTrue();
    Answer second = server.get(next.group(1).replace("&amp;", "&"), full);
    assertThat(rows(second)).hasSize(5).contains("seed", "job-053");

    queue(q).schedule(JobRequest.of("x").withId("active-1"));
    List<LeasedJob> claimed = List.of();
    for (int i = 0; i < 50 && claimed.isEmpty(); i++) {
      claimed = queue(q).pull().claim(1, Duration.ofMinutes(5));
    }
    assertThat(claimed).hasSize(1);
    Answer active = server.get("/queues/" + q + "?state=active", full);
    assertThat(rows(active)).containsExactly("active-1");
    assertThat(active.body()).contains("Lease until", "Holder", DashboardServer.delayq().processId())
        .doesNotContain("data-action=\"cancel\"");

    dead(q, "dead-1", "boom <b>bad</b>");
    Answer deadTab = server.get("/queues/" + q + "?state=dead", full);
    assertThat(deadTab.body()).contains("data-table=\"dead\"", "boom &lt;b&gt;bad&lt;/b&gt;", "data-action=\"requeue\"",
        "data-action=\"delete\"", "data-action=\"count\"").doesNotContain("<b>bad</b>");
    assertThat(rows(deadTab)).containsExactly("dead-1");

    Answer bad = server.get("/queues/" + q + "?state=sleeping", full);
    assertThat(bad.status()).isEqualTo(400);
    assertThat(bad.body()).contains("data-flash=\"error\"", "scheduled, due, active, expired, dead");
    assertThat(server.get("/queues/" + q + "?cursor=not-a-cursor", full).status()).isEqualTo(400);
    assertThat(server.get("/queues/no-such-" + UUID.randomUUID(), full).status()).isEqualTo(404);
  }

  @Test
  void theJobPageShowsEverythingAndThePayloadEscapedPrettyOrAsBytes() {
    String q = DashboardServer.newQueue("dash-job");
    queue(q).schedule(JobRequest.of("<script>alert(1)</script>").withId("xss").withDelay(Duration.ofHours(2))
        .withMaxAttempts(7));
    Answer page = server.get(path("queues", q, "jobs", "xss"), full);
    assertThat(page.status()).isEqualTo(200);
    assertThat(page.body()).contains("data-page=\"job\"", "data-state=\"scheduled\"", "0 of 7",
        "&lt;script&gt;alert(1)&lt;/script&gt;", "Download raw").doesNotContain("<script>alert(1)");

    queue(q).schedule(JobRequest.ofJson("{\"order\":42,\"items\":[1,2]}").withId("json").withDelay(Duration.ofHours(1)));
    assertThat(server.get(path("queues", q, "jobs", "json"), full).body()).contains("data-payload=\"json\"",
        "{\n  \"order\" : 42,\n  \"items\" : [ 1, 2 ]\n}</pre>");

    byte[] binary = new byte[6000];
    for (int i = 0; i < binary.length; i++) {
      binary[i] = (byte) i;
    }
    queue(q).schedule(JobRequest.of(binary).withId("bin").withDelay(Duration.ofHours(1)));
    Answer bin = server.get(path("queues", q, "jobs", "bin"), full);
    assertThat(bin.body()).contains("data-payload=\"hex\"", "00 01 02 03", "data-payload=\"base64\"", "AAECAwQF",
        "6,000 bytes");
    Answer raw = server.get(path("queues", q, "jobs", "bin", "payload"), full);
    assertThat(raw.status()).isEqualTo(200);
    assertThat(raw.header("Content-Type")).isEqualTo("application/octet-stream");
    assertThat(raw.header("Content-Disposition")).isEqualTo("attachment; filename=\"bin.bin\"");
    assertThat(raw.body().getBytes(StandardCharsets.ISO_8859_1).length).isGreaterThan(0);
    assertThat(bytes(path("queues", q, "jobs", "bin", "payload"))).isEqualTo(binary);

    String longText = "x".repeat(5000);
    queue(q).schedule(JobRequest.of(longText).withId("long").withDelay(Duration.ofHours(1)));
    Answer cut = server.get(path("queues", q, "jobs", "long"), full);
    assertThat(cut.body()).contains("the first 4,096 bytes").doesNotContain("x".repeat(4097));

    dead(q, "gone-wrong", "handler said no");
    Answer dead = server.get(path("queues", q, "jobs", "gone-wrong"), full);
    assertThat(dead.body()).contains("data-state=\"dead\"", "handler said no", "data-action=\"requeue\"");

    queue(q).schedule(JobRequest.of("x").withId("held"));
    LeasedJob held = null;
    for (int i = 0; i < 50 && held == null; i++) {
      held = queue(q).pull().claim(10, Duration.ofMinutes(5)).stream().filter(j -> j.id().equals("held"))
          .findFirst().orElse(null);
    }
    assertThat(held).isNotNull();
    Answer active = server.get(path("queues", q, "jobs", "held"), full);
    assertThat(active.body()).contains("data-state=\"active\"", "Lease until", DashboardServer.delayq().processId(),
        "Fencing token", Long.toString(held.token()));

    assertThat(server.get(path("queues", q, "jobs", "never"), full).status()).isEqualTo(404);
  }

  private static byte[] bytes(String path) {
    try {
      HttpResponse<byte[]> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
          URI.create(server.baseUrl() + path)).header("Cookie", full).build(), HttpResponse.BodyHandlers.ofByteArray());
      return response.body();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void findByIdLeadsToTheJobWithOrWithoutItsQueueAndSaysWhereItLooked() {
    String q = DashboardServer.newQueue("dash-find");
    for (String id : List.of("a b/c%d é", "<script>alert(1)</script>", "a/../b", "...", "plain")) {
      queue(q).schedule(JobRequest.of("x").withId(id).withDelay(Duration.ofHours(1)));
      String expected = "/queues/" + q + "/jobs/" + PageContext.segment(id);
      Answer inQueue = server.get("/find?queue=" + q + "&id=" + PageContext.queryValue(id), full);
      assertThat(inQueue.status()).as(id).isEqualTo(303);
      assertThat(inQueue.header("Location")).isEqualTo(expected);
      Answer job = server.get(inQueue.header("Location"), full);
      assertThat(job.status()).as(id).isEqualTo(200);
      assertThat(job.body()).doesNotContain("<script>alert(1)");
      if (id.equals("plain")) {
        continue;
      }
      assertThat(job.body()).contains("data-job-id=\"" + id.replace("<", "&lt;") + "\"");
    }
    Answer anywhere = server.get("/find?id=" + PageContext.queryValue("a b/c%d é"), full);
    assertThat(anywhere.status()).isEqualTo(303);
    String noSuch = "no-such-" + UUID.randomUUID();
    Answer missing = server.get("/find?queue=" + q + "&id=" + noSuch, full);
    assertThat(missing.status()).isEqualTo(404);
    assertThat(missing.body()).contains("data-page=\"find\"", noSuch, "Searched:", q);
    Answer missingEverywhere = server.get("/find?id=%3Cimg%20src%3Dx%3E", full);
    assertThat(missingEverywhere.status()).isEqualTo(404);
    assertThat(missingEverywhere.body()).contains("&lt;img src=x&gt;", "queues searched").doesNotContain("<img src=x>");
    Answer badQueue = server.get("/find?queue=%3Cscript%3E&id=x", full);
    assertThat(badQueue.status()).isEqualTo(400);
    assertThat(badQueue.body()).contains("&lt;script&gt;").doesNotContain("<script>");
    assertThat(server.get("/find?id=", full).status()).isEqualTo(400);
    Answer dotDot = server.get("/queues/" + q + "/jobs/%2E%2E", full);
    assertThat(dotDot.status()).isEqualTo(400);
    assertThat(dotDot.body()).contains("path step");
  }

  @Test
  void cancelRescheduleAndRunNowChangeTheJobInCore() {
    String q = DashboardServer.newQueue("dash-act");
    for (String id : List.of("c", "r1", "r2", "now", "odd/../id %")) {
      schedule(q, id, Duration.ofHours(5));
    }
    assertThat(server.action(path("queues", q, "jobs", "c", "cancel"), readOnly).status()).isEqualTo(403);
    assertThat(queue(q).get("c")).isPresent();
    Answer cancel = server.action(path("queues", q, "jobs", "c", "cancel"), full);
    assertThat(cancel.status()).isEqualTo(200);
    assertThat(cancel.body()).contains("data-flash=\"ok\"", "cancelled");
    assertThat(queue(q).get("c")).isEmpty();
    assertThat(server.action(path("queues", q, "jobs", "c", "cancel"), full).status()).isEqualTo(404);

    Instant before = Instant.now();
    assertThat(server.action(path("queues", q, "jobs", "r1", "reschedule"), readOnly, Map.of("delay", "1m")).status())
        .isEqualTo(403);
    assertThat(queue(q).get("r1").orElseThrow().runAt()).isAfter(before.plus(Duration.ofHours(4)));
    Answer moved = server.action(path("queues", q, "jobs", "r1", "reschedule"), full, Map.of("delay", "10m"));
    assertThat(moved.status()).as(moved.toString()).isEqualTo(200);
    assertThat(queue(q).get("r1").orElseThrow().runAt())
        .isBetween(before.plus(Duration.ofMinutes(9)), before.plus(Duration.ofMinutes(11)));
    Instant at = Instant.parse("2031-02-03T04:05:06Z");
    assertThat(server.action(path("queues", q, "jobs", "r2", "reschedule"), full, Map.of("runAt", "2031-02-03T04:05:06Z"))
        .status()).isEqualTo(200);
    assertThat(queue(q).get("r2").orElseThrow().runAt()).isEqualTo(at);
    assertThat(server.action(path("queues", q, "jobs", "r2", "reschedule"), full, Map.of("runAt", "2032-01-01T10:00"))
        .status()).isEqualTo(200);
    assertThat(queue(q).get("r2").orElseThrow().runAt()).isEqualTo(Instant.parse("2032-01-01T10:00:00Z"));

    assertThat(server.action(path("queues", q, "jobs", "now", "run-now"), readOnly).status()).isEqualTo(403);
    assertThat(server.action(path("queues", q, "jobs", "now", "run-now"), full).status()).isEqualTo(200);
    assertThat(queue(q).get("now").orElseThrow().runAt()).isBeforeOrEqualTo(Instant.now().plusSeconds(1));

    assertThat(server.action(path("queues", q, "jobs", "odd/../id %", "run-now"), full).status()).isEqualTo(200);
    assertThat(queue(q).get("odd/../id %").orElseThrow().runAt()).isBeforeOrEqualTo(Instant.now().plusSeconds(1));
  }

  @Test
  void hostileRescheduleValuesAreRefusedWithAReasonAndChangeNothing() {
    String q = DashboardServer.newQueue("dash-hostile");
    schedule(q, "j", Duration.ofHours(3));
    Instant runAt = queue(q).get("j").orElseThrow().runAt();
    Map<Map<String, String>, String> refusals = Map.of(
        Map.of("delay", "99999999999d"), "too long",
        Map.of("delay", "999999999999999999999s"), "not a delay",
        Map.of("delay", "abc"), "not a delay",
        Map.of("delay", "-5m"), "not a delay",
        Map.of("delay", "PT-5M"), "negative",
        Map.of("runAt", "yesterday"), "not a date",
        Map.of("runAt", "+999999999-12-31T23:59:59Z"), "too far",
        Map.of("runAt", "2031-01-01T00:00:00Z", "delay", "5m"), "not both",
        Map.of(), "give the new time");
    refusals.forEach((form, reason) -> {
      Answer refused = server.action(path("queues", q, "jobs", "j", "reschedule"), full, form);
      assertThat(refused.status()).as(form.toString()).isEqualTo(400);
      assertThat(refused.body()).as(form.toString()).contains("data-flash=\"error\"", reason);
    });
    assertThat(queue(q).get("j").orElseThrow().runAt()).isEqualTo(runAt);
    Answer tooLongId = server.action(path("queues", q, "jobs", "x".repeat(300), "cancel"), full);
    assertThat(tooLongId.status()).isEqualTo(400);
    assertThat(server.action("/queues/" + q + "/jobs/%C0%AF/cancel", full).status()).isEqualTo(400);
    assertThat(server.action(path("queues", q, "jobs", "missing", "reschedule"), full, Map.of("delay", "5m")).status())
        .isEqualTo(404);
  }

  @Test
  void deadJobsAreRequeuedAndDeletedOneByOne() {
    String q = DashboardServer.newQueue("dash-dead");
    dead(q, "d1", "e");
    dead(q, "d2", "e");
    assertThat(server.action(path("queues", q, "dead", "d1", "requeue"), readOnly).status()).isEqualTo(403);
    assertThat(server.action(path("queues", q, "dead", "d2", "delete"), readOnly).status()).isEqualTo(403);
    assertThat(queue(q).get("d1").orElseThrow().state()).isEqualTo(JobState.DEAD);
    assertThat(queue(q).get("d2").orElseThrow().state()).isEqualTo(JobState.DEAD);
    assertThat(server.action(path("queues", q, "dead", "d1", "requeue"), full).status()).isEqualTo(200);
    assertThat(queue(q).get("d1").orElseThrow().state()).isEqualTo(JobState.SCHEDULED);
    assertThat(server.action(path("queues", q, "dead", "d2", "delete"), full).status()).isEqualTo(200);
    assertThat(queue(q).get("d2")).isEmpty();
    assertThat(server.action(path("queues", q, "dead", "d2", "delete"), full).status()).isEqualTo(404);
    assertThat(server.action(path("queues", q, "dead", "d1", "requeue"), full).status()).isEqualTo(404);
  }

  @Test
  void bulkActionsCountFirstAndActOnlyOnWhatWasConfirmed() {
    String q = DashboardServer.newQueue("dash-bulk");
    for (int i = 0; i < 3; i++) {
      dead(q, "boom-" + i, "boom: database down");
    }
    dead(q, "other-1", "bad input");
    dead(q, "other-2", "boom elsewhere");

    assertThat(server.action(path("queues", q, "dead", "count"), readOnly, Map.of("error", "boom")).status())
        .isEqualTo(403);
    Answer count = server.action(path("queues", q, "dead", "count"), full, Map.of("error", "database", "idPrefix", "boom-"));
    assertThat(count.status()).isEqualTo(200);
    assertThat(count.body()).contains("data-bulk-count=\"3\"", "3 dead jobs match", "data-action=\"requeue-matching\"",
        "data-action=\"delete-matching\"", "name=\"expected\" value=\"3\"");
    String asOf = field(count.body(), "asOf");

    Map<String, String> confirmedTooFew = Map.of("error", "database", "idPrefix", "boom-", "expected", "2", "asOf", asOf);
    assertThat(server.action(path("queues", q, "dead", "requeue-matching"), readOnly, confirmedTooFew).status())
        .isEqualTo(403);
    Answer refused = server.action(path("queues", q, "dead", "requeue-matching"), full, confirmedTooFew);
    assertThat(refused.status()).isEqualTo(409);
    assertThat(refused.body()).contains("3 dead jobs match now", "the 2 you confirmed");
    assertThat(queue(q).admin().stats().dead()).isEqualTo(5);

    // a job that dies after the count is not touched by its confirmation
    dead(q, "boom-late", "boom: database down");
    Answer requeued = server.action(path("queues", q, "dead", "requeue-matching"), full,
        Map.of("error", "database", "idPrefix", "boom-", "expected", "3", "asOf", asOf));
    assertThat(requeued.status()).as(requeued.toString()).isEqualTo(200);
    assertThat(requeued.body()).contains("3 dead jobs requeued");
    for (int i = 0; i < 3; i++) {
      assertThat(queue(q).get("boom-" + i).orElseThrow().state()).isEqualTo(JobState.SCHEDULED);
    }
    assertThat(queue(q).get("boom-late").orElseThrow().state()).isEqualTo(JobState.DEAD);
    assertThat(queue(q).get("other-2").orElseThrow().state()).isEqualTo(JobState.DEAD);

    Answer all = server.action(path("queues", q, "dead", "count"), full, Map.of());
    assertThat(all.body()).contains("3 dead jobs match");
    Answer deleted = server.action(path("queues", q, "dead", "delete-matching"), full,
        Map.of("expected", "3", "asOf", field(all.body(), "asOf")));
    assertThat(deleted.body()).contains("3 dead jobs deleted");
    assertThat(queue(q).admin().stats().dead()).isZero();

    assertThat(server.action(path("queues", q, "dead", "delete-matching"), full, Map.of("expected", "x", "asOf", "1"))
        .status()).isEqualTo(400);
    assertThat(server.action(path("queues", q, "dead", "delete-matching"), full, Map.of()).body())
        .contains("count the matching jobs first");
    assertThat(server.action(path("queues", q, "dead", "count"), full, Map.of("deadBefore", "soon")).status())
        .isEqualTo(400);
  }

  private static String field(String html, String name) {
    Matcher m = Pattern.compile("name=\"" + name + "\" value=\"([^\"]*)\"").matcher(html);
    assertThat(m.find()).as(name + " in " + html).isTrue();
    return m.group(1);
  }

  @Test
  void theQueuesPageDrawsSparklinesFromTheHistory() {
    String q = DashboardServer.newQueue("dash-spark");
    Answer page = server.get("/", full);
    assertThat(page.status()).isEqualTo(200);
    assertThat(page.links()).anyMatch(l -> l.contains("charts.js")).anyMatch(l -> l.contains("uPlot.iife.min.js"));
    // the list is paged by name; the test's queue may be on a later page of a shared Redis
    assertThat(page.body()).contains("data-table=\"queues\"");
    Matcher m = Pattern.compile("<script type=\"application/json\" id=\"spark-t-\\d+\">([^<]*)</script>")
        .matcher(page.body());
    assertThat(m.find()).isTrue();
    assertThat(m.group(1)).startsWith("{\"x\":[").contains("\"series\":[{\"label\":\"delivered/min\"");
    assertThat(q).isNotEmpty();
  }
}
