package io.delayq.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

class TerminalTextTest {
  private static String printed(String... writes) {
    StringWriter target = new StringWriter();
    PrintWriter out = TerminalText.printWriter(target);
    for (String text : writes) {
      out.print(text);
    }
    out.flush();
    return target.toString();
  }

  @Test
  void controlsThatRepaintTheTerminalAreEscaped() {
    assertThat(printed("\u001b[2J\u001b]0;title\u0007")).isEqualTo("\\u001b[2J\\u001b]0;title\\u0007");
    assertThat(printed("a\u0000b\u007fc\u009bd")).isEqualTo("a\\u0000b\\u007fc\\u009bd");
    assertThat(printed("invoice\u202efdp.exe")).isEqualTo("invoice\\u202efdp.exe");
    assertThat(printed("\u2066x\u2069\u200e\u200f\u061c\u2028")).isEqualTo("\\u2066x\\u2069\\u200e\\u200f\\u061c\\u2028");
  }

  @Test
  void ordinaryTextTabsNewlinesAndWindowsLineEndsPass() {
    assertThat(printed("café ☕ 日本\ttab\nnext\r\nwin")).isEqualTo("café ☕ 日本\ttab\nnext\r\nwin");
  }

  @Test
  void aCarriageReturnThatOverwritesIsEscapedEvenAcrossWrites() {
    assertThat(printed("paid\rrefunded")).isEqualTo("paid\\u000drefunded");
    assertThat(printed("line\r", "\n")).isEqualTo("line\r\n");
    assertThat(printed("line\r", "x")).isEqualTo("line\\u000dx");
    assertThat(printed("ends with\r")).isEqualTo("ends with\\u000d");
  }

  @Test
  void escapedJsonIsStillJsonForTheSameText() throws Exception {
    ObjectMapper json = new ObjectMapper();
    String text = "\u001b[31m\u007f\u0085\u202e\u2028 é";
    String printed = printed(json.writeValueAsString(json.createObjectNode().put("payload", text)));
    assertThat(printed).doesNotContain("\u007f", "\u0085", "\u202e", "\u2028");
    assertThat(json.readTree(printed).get("payload").asText()).isEqualTo(text);
  }

  @Test
  void aLineEscapesItsLineBreaksAndTabsToo() {
    assertThat(TerminalText.line("a\nb\tc\rd\u001b")).isEqualTo("a\\u000ab\\u0009c\\u000dd\\u001b");
    String plain = "plain text";
    assertThat(TerminalText.line(plain)).isSameAs(plain);
  }

  @Test
  void tableCellsAreMeasuredAsShown() {
    String table = Format.table(java.util.List.of("ID", "N"),
        java.util.List.of(java.util.List.of("a\u001bb", "1"), java.util.List.of("plain", "22")), 1);
    assertThat(table.lines()).containsExactly(
        "ID         N",
        "a\\u001bb   1",
        "plain     22");
  }
}
