package io.delayq.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class EnqueueCommandTest {
  private static String stripped(String text) {
    return new String(EnqueueCommand.withoutTrailingNewline(text.getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8);
  }

  @Test
  void textLosesOneTrailingLineEnd() {
    assertThat(stripped("{\"a\":1}\n")).isEqualTo("{\"a\":1}");
    assertThat(stripped("crlf\r\n")).isEqualTo("crlf");
    assertThat(stripped("two\n\n")).isEqualTo("two\n");
    assertThat(stripped("none")).isEqualTo("none");
    assertThat(stripped("only cr\r")).isEqualTo("only cr\r");
    assertThat(stripped("\n")).isEmpty();
    assertThat(stripped("")).isEmpty();
  }

  @Test
  void bytesThatAreNotTextAreKeptWhole() {
    byte[] binary = {(byte) 0xff, 0x00, '\n'};
    assertThat(EnqueueCommand.withoutTrailingNewline(binary)).containsExactly(0xff, 0x00, '\n');
  }
}
