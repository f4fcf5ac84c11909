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

  @Test
  void refusesEveryByteOrderMarkAndWhatIsNotStrictUtf8InBothReadings() {
    String doc = "{\"every\":\"PT1M\"}";
    java.util.Map<String, byte[]> bodies = new java.util.LinkedHashMap<>();
    bodies.put("UTF-8 BOM", ("\uFEFF" + doc).getBytes(StandardCharsets.UTF_8));
    bodies.put("UTF-16 with its BOM (big-endian)", doc.getBytes(StandardCharsets.UTF_16));
    bodies.put("UTF-16LE BOM", ("\uFEFF" + doc).getBytes(StandardCharsets.UTF_16LE));
    bodies.put("UTF-16LE", doc.getBytes(StandardCharsets.UTF_16LE));
    bodies.put("UTF-32 BOM", ("\uFEFF" + doc).getBytes(java.nio.charset.Charset.forName("UTF-32BE")));
    bodies.put("UTF-32LE BOM", ("\uFEFF" + doc).getBytes(java.nio.charset.Charset.forName("UTF-32LE")));
    bodies.put("Latin-1 in a string", "{\"payload\":\"caf\u00e9\"}".getBytes(StandardCharsets.ISO_8859_1));
    bodies.put("Latin-1 in a name", "{\"caf\u00e9\":1}".getBytes(StandardCharsets.ISO_8859_1));
    bodies.put("an encoded surrogate", utf8WithRaw("{\"payload\":\"", new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, "\"}"));
    bodies.put("an overlong '/'", utf8WithRaw("{\"payload\":\"", new byte[] {(byte) 0xC0, (byte) 0xAF}, "\"}"));
    bodies.put("a cut sequence at the end", utf8WithRaw("[1]", new byte[] {(byte) 0xE2, (byte) 0x82}, ""));
    for (var body : bodies.entrySet()) {
      for (var reading : java.util.List.<java.util.function.Consumer<byte[]>>of(
          Json::parse, b -> Json.parseArray(b, 10, "jobs"))) {
        assertThatThrownBy(() -> reading.accept(body.getValue())).as(body.getKey())
            .isInstanceOfSatisfying(InvalidRequestException.class, e -> assertThat(e.field()).isEqualTo("body"))
            .hasMessageContaining("UTF-8");
      }
    }
    assertThat(parse("{\"payload\":\"caf\u00e9 \ud83d\ude00\"}").path("payload").asText()).isEqualTo("caf\u00e9 \ud83d\ude00");
  }

  private static byte[] utf8WithRaw(String before, byte[] raw, String after) {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    out.writeBytes(before.getBytes(StandardCharsets.UTF_8));
    out.writeBytes(raw);
    out.writeBytes(after.getBytes(StandardCharsets.UTF_8));
    return out.toByteArray();
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
