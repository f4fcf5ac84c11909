package io.delayq.server.web;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.delayq.HistoryBucket;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * Chart data for {@code charts.js}: {@code {"x":[epoch s...],"series":[{"label","values":[...]}]}},
 * embedded in a page as {@code <script type="application/json">} (data, never run). Written so that
 * it cannot end its script element: every {@code <}, {@code >} and {@code &} is a JSON escape.
 */
public final class Charts {
  private static final ObjectMapper JSON = new ObjectMapper();

  private Charts() {}

  /** One series over history buckets. */
  public static String series(List<HistoryBucket> buckets, String label, ToLongFunction<HistoryBucket> value) {
    ObjectNode chart = JSON.createObjectNode();
    ArrayNode x = chart.putArray("x");
    ArrayNode values = JSON.createArrayNode();
    for (HistoryBucket bucket : buckets) {
      x.add(bucket.start().getEpochSecond());
      values.add(value.applyAsLong(bucket));
    }
    chart.putArray("series").addObject().put("label", label).set("values", values);
    return embeddable(chart.toString());
  }

  /** JSON text safe inside a {@code <script>} element. */
  public static String embeddable(String json) {
    return json.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026");
  }
}
