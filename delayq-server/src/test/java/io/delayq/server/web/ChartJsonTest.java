package io.delayq.server.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class ChartJsonTest {
  @Test
  void textThatCouldEndTheScriptElementIsEscapedAndReadsBackTheSame() throws Exception {
    String hostile = "</script><script>alert(1)</script> & \u2028";
    String json = ChartJson.embeddable(ChartJson.object().put("title", hostile));

    assertThat(json).doesNotContain("<").doesNotContain(">").doesNotContain("&").doesNotContain("\u2028");
    assertThat(new ObjectMapper().readTree(json).path("title").asText()).isEqualTo(hostile);
  }
}
