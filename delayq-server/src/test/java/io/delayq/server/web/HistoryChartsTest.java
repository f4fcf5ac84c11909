package io.delayq.server.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayq.HistoryBucket;
import io.delayq.Lateness;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class HistoryChartsTest {
  private static final Instant T0 = Instant.parse("2026-12-02T08:00:00Z");
  private static final Duration MINUTE = Duration.ofMinutes(1);

  /** Lateness with {@code fast} deliveries within 1 ms and {@code slow} within 1 s. */
  private static Lateness lateness(long fast, long slow) {
    long[] counts = new long[Lateness.BUCKET_BOUNDS.size() + 1];
    counts[0] = fast;
    counts[Lateness.BUCKET_BOUNDS.indexOf(Duration.ofSeconds(1))] = slow;
    return Lateness.of(counts);
  }

  private static JsonNode read(com.fasterxml.jackson.databind.node.ObjectNode chart) throws Exception {
    return new ObjectMapper().readTree(ChartJson.embeddable(chart));
  }

  @Test
  void throughputHasOneColumnPerCountWithXInEpochSeconds() throws Exception {
    HistoryCharts charts = HistoryCharts.of(List.of(
        new HistoryBucket(T0.plus(MINUTE), MINUTE, 5, 4, 3, 1, 0, lateness(4, 0)),
        new HistoryBucket(T0, MINUTE, 10, 9, 8, 2, 1, lateness(9, 0))));

    JsonNode chart = read(charts.throughput());

    assertThat(chart.path("kind").asText()).isEqualTo("throughput");
    assertThat(chart.path("unit").asText()).isEqualTo("jobs per minute");
    assertThat(chart.path("labels").toString()).isEqualTo("[\"scheduled\",\"delivered\",\"acked\",\"retried\",\"dead\"]");
    assertThat(chart.path("data").toString()).isEqualTo(
        "[[" + T0.getEpochSecond() + "," + (T0.getEpochSecond() + 60) + "],[10,5],[9,4],[8,3],[2,1],[1,0]]");
    assertThat(charts.total(HistoryBucket::delivered)).isEqualTo(13);
  }

  @Test
  void latenessP50AndP99InMillisecondsWithGapsWhereNothingWasDelivered() throws Exception {
    HistoryCharts charts = HistoryCharts.of(List.of(
        new HistoryBucket(T0, MINUTE, 0, 100, 100, 0, 0, lateness(98, 2)),
        new HistoryBucket(T0.plus(MINUTE), MINUTE, 0, 0, 0, 0, 0, Lateness.NONE)));

    JsonNode data = read(charts.lateness50And99()).path("data");

    assertThat(data.get(1).toString()).as("p50").isEqualTo("[1.0,null]");
    assertThat(data.get(2).toString()).as("p99").isEqualTo("[1000.0,null]");
  }

  @Test
  void bucketsThatCountNothingHaveNoCountsSoThePageShowsItsEmptyState() {
    HistoryCharts quiet = HistoryCharts.of(List.of(
        new HistoryBucket(T0, MINUTE, 0, 0, 0, 0, 0, Lateness.NONE),
        new HistoryBucket(T0.plus(MINUTE), MINUTE, 0, 0, 0, 0, 0, Lateness.NONE)));
    assertThat(quiet.hasCounts()).isFalse();
    assertThat(HistoryCharts.of(List.of()).hasCounts()).isFalse();
    // any one count is enough: a minute that only buried a job is not quiet
    assertThat(HistoryCharts.of(List.of(new HistoryBucket(T0, MINUTE, 0, 0, 0, 0, 1, Lateness.NONE))).hasCounts())
        .isTrue();
  }

  @Test
  void missingBucketsBetweenAreZeros() throws Exception {
    HistoryCharts charts = HistoryCharts.of(List.of(
        new HistoryBucket(T0, MINUTE, 1, 1, 1, 0, 0, lateness(1, 0)),
        new HistoryBucket(T0.plus(MINUTE.multipliedBy(3)), MINUTE, 2, 2, 2, 0, 0, lateness(2, 0))));

    JsonNode data = read(charts.throughput()).path("data");

    assertThat(data.get(0)).hasSize(4);
    assertThat(data.get(1).toString()).isEqualTo("[1,0,0,2]");
  }

  @Test
  void hourlyBucketsCountPerHourAndTheSparklineHasDeliveredAndP99() throws Exception {
    Duration hour = Duration.ofHours(1);
    HistoryCharts charts = HistoryCharts.of(List.of(new HistoryBucket(T0, hour, 7, 6, 6, 0, 0, lateness(6, 0))));

    assertThat(read(charts.throughput()).path("unit").asText()).isEqualTo("jobs per hour");
    JsonNode sparkline = read(charts.sparkline());
    assertThat(sparkline.path("labels").toString()).isEqualTo("[\"delivered\",\"p99\"]");
    assertThat(sparkline.path("data").toString()).isEqualTo("[[" + T0.getEpochSecond() + "],[6],[1.0]]");
  }

  @Test
  void noBucketsIsAnEmptyChart() throws Exception {
    JsonNode data = read(HistoryCharts.of(List.of()).throughput()).path("data");
    assertThat(data).hasSize(6);
    assertThat(data.get(0)).isEmpty();
  }
}
