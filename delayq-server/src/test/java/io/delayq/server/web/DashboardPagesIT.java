package io.delayq.server.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayq.Delayq;
import io.delayq.JobQueue;
import io.delayq.JobRequest;
import io.delayq.Schedule;
import io.delayq.ScheduleInfo;
import io.delayq.ScheduledJob;
import io.delayq.WorkerOptions;
import io.delayq.Workers;
import io.delayq.server.http.HttpSettings;
import io.delayq.server.web.DashboardServer.Answer;
import org.jsoup.Jsoup;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Schedules, Workers, History and Redis pages of an in-process server on the real Redis, read
 * and acted on over HTTP as a browser would: with a full session and with a read-only one. The
 * shared Redis holds many other queues (and perhaps other processes' workers), so each test looks
 * only at its own queues, schedules and processes.
 */
class DashboardPagesIT {
  private static final String TOKEN = "pages-full-" + UUID.randomUUID();
  private static final String READ_ONLY_TOKEN = "pages-ro-" + UUID.randomUUID();
  private static final ObjectMapper JSON = new ObjectMapper();

  private static Delayq delayq;
  private static DashboardServer server;
  private static String full;
  private static String readOnly;
  private final List<Delayq> clients = new ArrayList<>();
  private String queue;

  @BeforeAll
  static void start() throws Exception {
    delayq = DashboardServer.delayq();
    server = DashboardServer.start(HttpSettings.of("127.0.0.1", 0, TOKEN).withReadOnlyToken(READ_ONLY_TOKEN));
    full = server.login(TOKEN);
    readOnly = server.login(READ_ONLY_TOKEN);
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  private static Answer get(String cookie, String path) {
    return server.get(path, cookie);
  }

  private static Answer post(String cookie, String path) {
    return server.action(path, cookie);
  }

  private static Document html(Answer answer) {
    return Jsoup.parse(answer.body());
  }

  @BeforeEach
  void uniqueQueue() {
    queue = "it-pages." + UUID.randomUUID().toString().substring(0, 8) + ":q-1_x";
  }

  @org.junit.jupiter.api.AfterEach
  void closeClients() {
    clients.forEach(Delayq::close);
  }

  private Delayq client() {
    Delayq client = Delayq.builder().redisUrl(DashboardServer.redisUrl()).heartbeatInterval(Duration.ofMillis(200))
        .historyFlushInterval(Duration.ofMillis(200)).build();
    clients.add(client);
    return client;
  }

  private static String encoded(String segment) {
    return io.delayq.server.http.PathCodec.encodeSegment(segment);
  }

  private String schedulesPath() {
    return "/queues/" + encoded(queue) + "/schedules";
  }

  private String actionPath(String name, String action) {
    return schedulesPath() + "/" + encoded(name) + "/" + action;
  }

  private static Document ok(Answer answer) {
    assertThat(answer.status()).as(answer.toString()).isEqualTo(200);
    return html(answer);
  }

  private static Element row(Document page, String table, String key) {
    return page.select("table[data-table=" + table + "] tr[data-row]").stream()
        .filter(row -> row.attr("data-row").equals(key)).findFirst()
        .orElseThrow(() -> new AssertionError("no row '" + key + "' in table " + table + ": " + page.select("main")));
  }

  // --- Schedules

  @Test
  void aQueuesSchedulesShowTimingZoneNextFiveOccurrencesStateAndActions() {
    JobQueue q = delayq.queue(queue);
    q.schedules().set(Schedule.cron("digest:eu.1", "0 9 * * *").inZone(ZoneId.of("Europe/Amsterdam")));
    q.schedules().set(Schedule.every("tick_2", Duration.ofMinutes(90)).withPaused(true));

    Document page = ok(get(full, schedulesPath()));

    assertThat(page.select("main").attr("data-page")).isEqualTo("schedules");
    Element digest = row(page, "schedules", "digest:eu.1");
    assertThat(digest.text()).contains("cron 0 9 * * *").contains("Europe/Amsterdam").contains("Not fired yet; 0 fired, 0 skipped");
    assertThat(digest.select("ol.upcoming time")).hasSize(5).allSatisfy(time -> {
      // one short line in the schedule's zone; the full instant in UTC on hover
      assertThat(time.text()).matches("\\w{3} \\d\\d-\\d\\d 09:00 \\+0[12]:00");
      assertThat(time.attr("title")).matches("\\d{4}-\\d\\d-\\d\\d 0[78]:00:00 UTC");
    });
    assertThat(digest.select("[data-state]").attr("data-state")).isEqualTo("active");
    assertThat(digest.select("a[data-pending]").attr("href")).startsWith("/queues/" + encoded(queue) + "/jobs/digest:eu.1%40");
    assertThat(digest.select("[data-action=schedule-pause]").attr("hx-post")).isEqualTo(actionPath("digest:eu.1", "pause"));
    assertThat(digest.select("[data-action=schedule-run]").attr("hx-post")).isEqualTo(actionPath("digest:eu.1", "run"));
    Element tick = row(page, "schedules", "tick_2");
    assertThat(tick.text()).contains("every 1 h 30 min").contains("UTC");
    assertThat(tick.select("[data-state]").attr("data-state")).isEqualTo("paused");
    assertThat(tick.select("[data-action=schedule-resume]")).hasSize(1);
    assertThat(tick.select("a[data-pending]")).isEmpty();
    assertThat(tick.select("[data-if-resumed]")).as("a paused schedule's occurrences are those it would have").hasSize(1);
  }

  @Test
  void aCursorTheListingDidNotGiveOutIsA400SayingWhatToDo() {
    delayq.queue(queue).schedules().set(Schedule.every("c", Duration.ofHours(1)));
    for (String path : List.of("/schedules?cursor=bm90LWEtY3Vyc29y", schedulesPath() + "?cursor=%3Cb%3E")) {
      Answer answer = get(full, path);
      assertThat(answer.status()).as(answer.toString()).isEqualTo(400);
      assertThat(html(answer).select("main").text()).contains("cursor");
      assertThat(html(answer).select("main b")).isEmpty();
    }
  }

  @Test
  void theAllQueuesListingFindsTheQueuesSchedulesPageByPageAmongManyQueues() {
    delayq.queue(queue).schedules().set(Schedule.every("all-queues", Duration.ofHours(1)));

    String path = "/schedules";
    Element found = null;
    int pages = 0;
    while (found == null && path != null && pages < 50) {
      Document page = ok(get(full, path));
      pages++;
      assertThat(page.select("table[data-table=schedules] tr[data-row]")).hasSizeLessThanOrEqualTo(ScheduleListing.MAX_ROWS);
      found = page.select("tr[data-row=all-queues]").stream()
          .filter(row -> row.attr("data-queue").equals(queue)).findFirst().orElse(null);
      Element next = page.selectFirst("nav.pager a[rel=next]");
      if (!page.select("[data-stopped-early]").isEmpty()) {
        assertThat(next).as("a page that stopped early links to the rest").isNotNull();
        assertThat(page.select("[data-stopped-early]").text()).contains(ScheduleListing.MAX_QUEUES_PER_PAGE + " queues");
      }
      path = next == null ? null : next.attr("href");
    }
    assertThat(found).as("the schedule, after " + pages + " pages").isNotNull();
    assertThat(found.select("td.name a").attr("href")).isEqualTo(schedulesPath());
  }

  @Test
  void pauseResumeAndRunNowChangeTheScheduleAndSayWhatTheyDid() {
    JobQueue q = delayq.queue(queue);
    String name = "act:ion.s";
    q.schedules().set(Schedule.every(name, Duration.ofHours(1)));

    Answer paused = post(full, actionPath(name, "pause"));
    assertThat(paused.status()).as(paused.toString()).isEqualTo(200);
    assertThat(html(paused).select("[data-flash]").attr("data-flash")).isEqualTo("ok");
    assertThat(q.schedules().get(name).orElseThrow().schedule().paused()).isTrue();
    assertThat(row(ok(get(full, schedulesPath())), "schedules", name).select("[data-action=schedule-resume]")).hasSize(1);

    Answer resumed = post(full, actionPath(name, "resume"));
    assertThat(resumed.status()).as(resumed.toString()).isEqualTo(200);
    ScheduleInfo info = q.schedules().get(name).orElseThrow();
    assertThat(info.schedule().paused()).isFalse();
    assertThat(info.pendingJobId()).isNotNull();

    Answer run = post(full, actionPath(name, "run"));
    assertThat(run.status()).as(run.toString()).isEqualTo(200);
    Matcher id = Pattern.compile("as job '([^']+)'").matcher(html(run).select("[data-flash=ok]").text());
    assertThat(id.find()).as(run.toString()).isTrue();
    assertThat(q.get(id.group(1))).as("the extra job exists").isPresent();
    assertThat(id.group(1)).startsWith(name + "@");
  }

  @Test
  void aReadOnlySessionSeesNoActionsAndEachActionIsRefusedLeavingTheScheduleAsItWas() {
    JobQueue q = delayq.queue(queue);
    q.schedules().set(Schedule.every("ro-a", Duration.ofHours(1)));
    q.schedules().set(Schedule.every("ro-b", Duration.ofHours(1)).withPaused(true));
    ScheduleInfo before = q.schedules().get("ro-a").orElseThrow();

    Document page = ok(get(readOnly, schedulesPath()));
    assertThat(page.select("table[data-table=schedules] tr[data-row]")).hasSize(2);
    assertThat(page.select("[data-action^=schedule-]")).isEmpty();

    for (String action : List.of("pause", "run")) {
      assertThat(post(readOnly, actionPath("ro-a", action)).status()).as(action).isEqualTo(403);
    }
    assertThat(post(readOnly, actionPath("ro-b", "resume")).status()).isEqualTo(403);
    ScheduleInfo after = q.schedules().get("ro-a").orElseThrow();
    assertThat(after.schedule().paused()).isFalse();
    assertThat(after.pendingJobId()).isEqualTo(before.pendingJobId());
    assertThat(q.schedules().get("ro-b").orElseThrow().schedule().paused()).isTrue();
    assertThat(q.admin().stats().scheduled()).as("no run-now job").isEqualTo(1);
  }

  @Test
  void actionsOnAScheduleOrQueueThatIsNotThereAre404AndCreateNothing() {
    assertThat(post(full, actionPath("nope", "pause")).status()).isEqualTo(404);
    assertThat(delayq.existingQueue(queue)).as("reads and refused actions never create a queue").isEmpty();
    assertThat(get(full, schedulesPath()).status()).isEqualTo(404);
    delayq.queue(queue).schedules().set(Schedule.every("there", Duration.ofHours(1)));
    Answer missing = post(full, actionPath("not-there", "run"));
    assertThat(missing.status()).isEqualTo(404);
    assertThat(html(missing).select("[data-flash=error]").text()).contains("no schedule named 'not-there'");
  }

  @Test
  void aQueueWithoutSchedulesSaysSo() {
    delayq.queue(queue).schedule(JobRequest.of("x").withDelay(Duration.ofHours(1)));

    Document page = ok(get(full, schedulesPath()));

    assertThat(page.select("table[data-table=schedules]")).isEmpty();
    assertThat(page.select("[data-empty=schedules]").text()).contains("has no schedules");
  }

  // --- Workers

  @Test
  void aWorkerProcessAppearsWithItsQueueAndConcurrencyAndGoesWhenClosed() {
    Delayq worker = client();
    Workers workers = worker.queue(queue).startWorkers(job -> {}, WorkerOptions.builder().concurrency(3).build());

    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
      Document page = ok(get(full, "/workers"));
      Element row = row(page, "workers", worker.processId());
      Element work = row.select("li[data-queue]").stream()
          .filter(item -> item.attr("data-queue").equals(queue)).findFirst().orElse(null);
      assertThat(work).as(row.toString()).isNotNull();
      assertThat(work.select("[data-concurrency]").text()).isEqualTo("3");
      assertThat(work.select("[data-in-flight]").text()).isEqualTo("0");
      assertThat(work.select("a").attr("href")).isEqualTo("/queues/" + encoded(queue));
      assertThat(row.select("[data-last-seen]").text()).matches("just now|\\d+ s ago");
      assertThat(row.text()).contains(Long.toString(ProcessHandle.current().pid()));
    });

    workers.close();
    worker.close();
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
        assertThat(ok(get(full, "/workers")).select("tr[data-row=" + worker.processId() + "]")).isEmpty());
  }

  // --- History

  @Test
  void historyAfterJobsRanShowsTheirCountsInTheEmbeddedChartDataForTheQueueAndAllQueues() throws Exception {
    Delayq worker = client();
    JobQueue q = worker.queue(queue);
    for (int i = 0; i < 5; i++) {
      q.schedule(JobRequest.of("job " + i).withId("h" + i));
    }
    worker.queue(queue).startWorkers(job -> {}, WorkerOptions.builder().concurrency(2).build());

    await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
      Document page = ok(get(full, "/queues/" + encoded(queue) + "/history?range=1h"));
      JsonNode throughput = chart(page, "throughput");
      assertThat(sum(throughput.path("data").get(1))).as("scheduled").isEqualTo(5);
      assertThat(sum(throughput.path("data").get(2))).as("delivered").isEqualTo(5);
      assertThat(sum(throughput.path("data").get(3))).as("acked").isEqualTo(5);
      assertThat(throughput.path("data").get(0)).hasSize(60);
      JsonNode lateness = chart(page, "lateness");
      assertThat(lateness.path("labels").toString()).isEqualTo("[\"p50\",\"p99\"]");
      assertThat(lateness.path("data").get(2)).anySatisfy(p99 -> assertThat(p99.isNumber()).isTrue());
      assertThat(page.select("[data-total=delivered]").text()).isEqualTo("5");
    });

    JsonNode all = chart(ok(get(full, "/history?range=24h")), "throughput");
    assertThat(all.path("data").get(0)).hasSize(1440);
    assertThat(sum(all.path("data").get(2))).as("all queues delivered at least ours").isGreaterThanOrEqualTo(5);
    JsonNode week = chart(ok(get(full, "/queues/" + encoded(queue) + "/history?range=7d")), "throughput");
    assertThat(week.path("unit").asText()).isEqualTo("jobs per hour");
    assertThat(sum(week.path("data").get(2))).isEqualTo(5);
  }

  @Test
  void theQueueSelectorLeadsToTheQueuesHistoryAndABadRangeOrQueueIsRefusedEscaped() {
    delayq.queue(queue).schedule(JobRequest.of("x").withDelay(Duration.ofHours(1)));

    Answer chosen = get(full, "/history?range=24h&queue=" + encoded(queue));
    assertThat(chosen.status()).isEqualTo(303);
    assertThat(chosen.header("Location")).isEqualTo("/queues/" + encoded(queue) + "/history?range=24h");
    Document page = ok(get(full, "/queues/" + encoded(queue) + "/history"));
    assertThat(page.select("[data-range=1h]").is("strong")).as("1h is the default").isTrue();
    assertThat(page.select("datalist#history-queues option").size()).isPositive();
    List<String> assets = new ArrayList<>(page.select("script[src]").eachAttr("src"));
    assets.addAll(page.select("link[rel=stylesheet]").eachAttr("href"));
    assertThat(assets).as("the layout's and the pages' own").hasSizeGreaterThanOrEqualTo(4)
        .anyMatch(src -> src.contains("/uplot/")).anyMatch(src -> src.endsWith("/charts.js"))
        .anyMatch(src -> src.endsWith("/pages.css"));
    for (String asset : assets) {
      Answer served = get(full, asset);
      assertThat(served.status()).as(asset).isEqualTo(200);
      assertThat(served.header("Cache-Control")).as(asset).contains("immutable");
    }

    Answer badRange = get(full, "/history?range=30d");
    assertThat(badRange.status()).isEqualTo(400);
    assertThat(html(badRange).text()).contains("must be 1h, 24h or 7d");
    Answer hostile = get(full, "/history?queue=%3Cb%3Ebold%3C%2Fb%3E");
    assertThat(hostile.status()).isEqualTo(400);
    assertThat(hostile.body()).doesNotContain("<b>bold</b>");
    assertThat(html(hostile).select("b")).isEmpty();
  }

  // --- Redis

  @Test
  void theRedisPageShowsTheServersVersionMemoryPolicyAndPersistence() {
    RedisClient raw = RedisClient.create(DashboardServer.redisUrl());
    String info;
    try (StatefulRedisConnection<String, String> connection = raw.connect()) {
      info = connection.sync().info("server");
    } finally {
      raw.shutdown();
    }
    String version = info.lines().filter(line -> line.startsWith("redis_version:")).findFirst().orElseThrow()
        .substring("redis_version:".length()).trim();

    Document page = ok(get(full, "/redis"));

    assertThat(page.select("main").attr("data-page")).isEqualTo("redis");
    Element node = page.selectFirst("table[data-table=redis] tr[data-row]");
    assertThat(node).as(page.select("main").toString()).isNotNull();
    assertThat(node.select("[data-version]").text()).isEqualTo(version);
    assertThat(node.select("[data-memory]").text()).matches(".*\\d+(\\.\\d)? (B|KiB|MiB|GiB).*");
    assertThat(node.select("[data-policy]").attr("data-policy")).isIn("safe", "evicting");
    assertThat(node.text()).containsAnyOf("AOF on", "AOF off");
  }

  private static JsonNode chart(Document page, String kind) throws Exception {
    Element block = page.selectFirst("script[type=application/json][data-chart=" + kind + "]");
    assertThat(block).as("chart " + kind + " in " + page.select("main")).isNotNull();
    return JSON.readTree(block.data());
  }

  private static long sum(JsonNode column) {
    long sum = 0;
    for (JsonNode value : column) {
      sum += value.asLong();
    }
    return sum;
  }
}
