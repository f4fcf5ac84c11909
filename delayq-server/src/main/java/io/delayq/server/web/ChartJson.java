package io.delayq.server.web;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Chart data as the pages embed it: JSON inside {@code <script type="application/json">}, which the
 * browser never runs and {@code charts.js} reads with {@code JSON.parse}. The template writes it
 * unescaped (HTML escaping would corrupt the JSON), so the characters that could end the element
 * or open markup ({@code < > &}) and the line and paragraph separators that older parsers reject are written as
 * JSON unicode escapes, which {@code JSON.parse} turns back into the same text.
 */
public final class ChartJson {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private ChartJson() {}

  /** A new empty object to fill. */
  static ObjectNode object() {
    return MAPPER.createObjectNode();
  }

  /** The JSON text of {@code node}, safe to place between {@code <script type="application/json">} and its end tag. */
  public static String embeddable(ObjectNode node) {
    String json;
    try {
      json = MAPPER.writeValueAsString(node);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("a tree of plain values always writes", e);
    }
    StringBuilder out = new StringBuilder(json.length() + 16);
    for (int i = 0; i < json.length(); i++) {
      char c = json.charAt(i);
      switch (c) {
        case '<' -> out.append("\\u003c");
        case '>' -> out.append("\\u003e");
        case '&' -> out.append("\\u0026");
        case '\u2028' -> out.append("\\u2028");
        case '\u2029' -> out.append("\\u2029");
        default -> out.append(c);
      }
    }
    return out.toString();
  }
}
