package io.delayq.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class ScriptTest {
  @Test
  void everyScriptHasItsIncludesExpandedAndADocumentedHeader() {
    for (Script script : Script.values()) {
      assertThat(script.body()).as(script.fileName()).doesNotContain("@include");
      assertThat(script.body()).as(script.fileName()).contains("KEYS[1]").contains("Returns");
      assertThat(script.sha()).hasSize(40).matches("[0-9a-f]+");
    }
    assertThat(Script.CLAIM.body()).contains("local function redis_now_us()").contains("local function bury(");
  }

  @Test
  void shasAreDistinct() {
    assertThat(Arrays.stream(Script.values()).map(Script::sha).distinct().count()).isEqualTo(Script.values().length);
  }
}
