package io.delayq.server.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayq.HistoryBucket;
import io.delayq.Lateness;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.junit.jupiter.api.Test;

/**
 * The pages' templates rendered without a server: empty states, and text from Redis (another
 * process's host name, a job id, a setting) that could be markup is shown as text.
 */
class PageTemplatesTest {
  private static final String HOSTILE = "<img src=x onerror=alert(1)>\"'&";
  private final Templates templates = new Templates();
  private final Assets assets = new Assets();

  private PageContext page(Role role) {
    return new PageContext("/dq", role, true, "/", templates, assets);
  }

  private Document render(Role role, String template, Map<String, Object> params) {
    return Jsoup.parse(page(role).render(template, params));
  }

  @Test
  void emptyStatesSayWhatIsMissingAndHowItComes() {
    Document workers = render(Role.FULL, "workers.jte", Map.of("rows", List.of()));
    assertThat(workers.select("main").attr("data-page")).isEqualTo("workers");
    assertThat(workers.select("[data-empty=workers]").text()).contains("No worker process is alive now");
    assertThat(workers.select("table")).isEmpty();

    Document redis = render(Role.FULL, "redis.jte", Map.of("nodes", List.of()));
    assertThat(redis.select("[data-empty=redis]")).hasSize(1);

    Map<String, Object> schedules = new HashMap<>();
    schedules.put("queue", "");
    schedules.put("result", new ScheduleListing.Result(List.of(), null, 12, false, "zz"));
    schedules.put("paged", false);
    schedules.put("next", "");
    Document none = render(Role.FULL, "schedules.jte", schedules);
    assertThat(none.select("[data-empty=schedules]").text()).startsWith("No schedules.");
    assertThat(none.select("nav.pager a")).isEmpty();
  }

  @Test
  void aPageThatStoppedEarlySaysWhereAndLinksOn() {
    Map<String, Object> schedules = new HashMap<>();
    schedules.put("queue", "");
    schedules.put("result", new ScheduleListing.Result(List.of(), "abc", 500, true, "q-499"));
    schedules.put("paged", true);
    schedules.put("next", "/dq/schedules?cursor=abc");
    Document page = render(Role.FULL, "schedules.jte", schedules);

    assertThat(page.select("[data-stopped-early]").text()).contains("500 queues").contains("'q-499'");
    assertThat(page.select("nav.pager a[rel=next]").attr("href")).isEqualTo("/dq/schedules?cursor=abc");
    assertThat(page.select("[data-empty=schedules]").text()).startsWith("No schedules on this page.");
  }

  @Test
  void textFromRedisIsEscapedWhereverItStands() {
    ScheduleRow row = new ScheduleRow("q", "s", "every 1 min", "UTC",
        List.of(new ScheduleRow.Occurrence(HOSTILE, HOSTILE, HOSTILE, HOSTILE)), false, HOSTILE, 1, 0, HOSTILE, HOSTILE);
    Map<String, Object> schedules = new HashMap<>();
    schedules.put("queue", "q");
    schedules.put("result", new ScheduleListing.Result(List.of(row), null, 1, false, "q"));
    schedules.put("paged", false);
    schedules.put("next", "");
    String html = page(Role.FULL).render("schedules.jte", schedules);
    Document page = Jsoup.parse(html);
    assertThat(page.select("img")).isEmpty();
    assertThat(html).doesNotContain("<img");
    assertThat(page.select("[data-outcome]").text()).contains(HOSTILE);
    assertThat(page.select("a[data-pending]").text()).isEqualTo(HOSTILE);
    assertThat(page.select("a[data-pending]").attr("href")).isEqualTo("/dq/queues/q/jobs/" + io.delayq.server.http.PathCodec.encodeSegment(HOSTILE));

    WorkerRow worker = new WorkerRow("p1", HOSTILE, "1", HOSTILE, "s", "s", "l", "l",
        List.of(new WorkerRow.Work("q", 1, 0)));
    String workers = page(Role.FULL).render("workers.jte", Map.of("rows", List.of(worker)));
    assertThat(workers).doesNotContain("<img");
    assertThat(Jsoup.parse(workers).select("tr[data-row=p1]").text()).contains(HOSTILE);

    RedisNodeView node = new RedisNodeView(HOSTILE, "master", HOSTILE, "standalone", "1 B", -1, HOSTILE, true,
        "AOF off", HOSTILE, "-", "-", "1", "1 s", "1 ms", List.of(HOSTILE));
    String redis = page(Role.FULL).render("redis.jte", Map.of("nodes", List.of(node)));
    assertThat(redis).doesNotContain("<img");
    assertThat(Jsoup.parse(redis).select("[data-policy=evicting]").text()).contains(HOSTILE).contains("noeviction");
  }

  @Test
  void aReadOnlySessionGetsNoActionButtons() {
    ScheduleRow row = new ScheduleRow("q", "s", "every 1 min", "UTC", List.of(), true, "Not fired yet", 0, 0, null, null);
    Map<String, Object> schedules = new HashMap<>();
    schedules.put("queue", "q");
    schedules.put("result", new ScheduleListing.Result(List.of(row), null, 1, false, "q"));
    schedules.put("paged", false);
    schedules.put("next", "");

    assertThat(render(Role.READ_ONLY, "schedules.jte", schedules).select("main [data-action]")).isEmpty();
    assertThat(render(Role.FULL, "schedules.jte", schedules).select("[data-action=schedule-resume]").attr("hx-post"))
        .isEqualTo("/dq/queues/q/schedules/s/resume");
  }

  @Test
  void historyEmbedsItsChartDataAsJsonThatCannotEndTheScriptElement() throws Exception {
    Instant t0 = Instant.parse("2026-12-02T08:00:00Z");
    HistoryCharts charts = HistoryCharts.of(List.of(
        new HistoryBucket(t0, Duration.ofMinutes(1), 3, 2, 2, 0, 0, Lateness.NONE)));
    Map<String, Object> params = new HashMap<>();
    params.put("queue", "q");
    params.put("range", HistoryRange.HOUR);
    params.put("ranges", List.of(HistoryRange.values()));
    params.put("charts", charts);
    params.put("throughput", ChartJson.embeddable(charts.throughput().put("title", "</script><b>x</b>")));
    params.put("lateness", ChartJson.embeddable(charts.lateness50And99()));
    params.put("queueNames", List.of("q", "r"));
    Document page = render(Role.FULL, "history.jte", params);

    assertThat(page.select("b")).isEmpty();
    String json = page.selectFirst("script[data-chart=throughput]").data();
    assertThat(new ObjectMapper().readTree(json).path("title").asText()).isEqualTo("</script><b>x</b>");
    assertThat(page.select("script[src]").eachAttr("src"))
        .anyMatch(src -> src.startsWith("/dq/assets/uplot/1.6.30/dist/uPlot.iife.min.js"))
        .anyMatch(src -> src.matches("/dq/assets/delayq/[^/]+/charts.js"));
    assertThat(page.select("[data-range=1h]").is("strong")).isTrue();
    assertThat(page.select("a[data-range=7d]").attr("href")).isEqualTo("/dq/queues/q/history?range=7d");
    assertThat(page.select("[data-total=scheduled]").text()).isEqualTo("3");
    assertThat(page.select("[style]")).as("no inline style (CSP)").isEmpty();
    assertThat(page.select("script:not([src]):not([type=application/json])")).as("no inline script (CSP)").isEmpty();
    // jobs counted, but none delivered with a lateness: the throughput is drawn, the lateness says why it is not
    assertThat(page.select("[data-empty=throughput]")).isEmpty();
    assertThat(page.selectFirst("script[data-chart=throughput]").hasAttr("data-chart-empty")).isFalse();
    assertThat(page.select("[data-empty=lateness]").text()).contains("Nothing was delivered in the last hour");
    assertThat(page.selectFirst("script[data-chart=lateness]").hasAttr("data-chart-empty")).isTrue();
  }

  @Test
  void historyOfAQuietRangeSaysSoInsteadOfDrawingFlatLines() {
    Instant t0 = Instant.parse("2026-12-02T08:00:00Z");
    HistoryCharts charts = HistoryCharts.of(List.of(
        new HistoryBucket(t0, Duration.ofMinutes(1), 0, 0, 0, 0, 0, Lateness.NONE),
        new HistoryBucket(t0.plus(Duration.ofMinutes(1)), Duration.ofMinutes(1), 0, 0, 0, 0, 0, Lateness.NONE)));
    Map<String, Object> params = new HashMap<>();
    params.put("queue", "q");
    params.put("range", HistoryRange.DAY);
    params.put("ranges", List.of(HistoryRange.values()));
    params.put("charts", charts);
    params.put("throughput", ChartJson.embeddable(charts.throughput()));
    params.put("lateness", ChartJson.embeddable(charts.lateness50And99()));
    params.put("queueNames", List.of("q"));
    Document page = render(Role.READ_ONLY, "history.jte", params);

    assertThat(page.select("[data-empty=throughput]").text())
        .isEqualTo("No job was scheduled, delivered, acked, retried or buried on this queue in the last 24 hours.");
    assertThat(page.select("script[data-chart][data-chart-empty]")).hasSize(2);
  }
}
