package io.delayq.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delayq.InvalidRequestException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class JsonTest {

  @Test
  void parsesTrees() {
    assertThat(parse("{\"a\":[1,2],\"b\":\"c\"}").path("a").size()).isEqualTo(2);
  }

  @Test
  void refusesWhatIsNotExactlyOneJsonDocument() {
    assertRefused("", "body: is empty");
    assertRefused("   ", "body: holds no JSON value");
    assertRefused("{\"payload\": ", "body: is not valid JSON");
    assertRefused("{\"a\":1} {\"b\":2}", "body: is not valid JSON");
    assertRefused("{\"a\":1}x", "body: is not valid JSON");
    assertRefused("{'a':1}", "body: is not valid JSON");
    assertRefused("{\"a\":NaN}", "body: is not valid JSON");
  }

  @Test
  void refusesDuplicateKeys() {
    assertRefused("{\"delayMs\":1,\"delayMs\":2}", "Duplicate field 'delayMs'");
  }

  @Test
  void refusesDeepNestingAndLongNumbers() {
    assertRefused("[".repeat(Json.MAX_NESTING + 1) + "]".repeat(Json.MAX_NESTING + 1), "body: breaks a limit of this API");
    assertRefused("{\"delayMs\":" + "9".repeat(Json.MAX_NUMBER_CHARS + 1) + "}", "body: breaks a limit of this API");
    assertRefused("{\"" + "k".repeat(Json.MAX_NAME_CHARS + 1) + "\":1}", "body: breaks a limit of this API");
  }

  @Test
  void positionsAreReported() {
    assertThatThrownBy(() -> parse("{\n\"a\": tru }"))
        .hasMessageContaining("line 2");
  }

  private static com.fasterxml.jackson.databind.JsonNode parse(String text) {
    return Json.parse(text.getBytes(StandardCharsets.UTF_8));
  }

  private static void assertRefused(String text, String message) {
    assertThatThrownBy(() -> parse(text))
        .isInstanceOfSatisfying(InvalidRequestException.class, e -> assertThat(e.field()).isEqualTo("body"))
        .hasMessageContaining(message);
  }
}
