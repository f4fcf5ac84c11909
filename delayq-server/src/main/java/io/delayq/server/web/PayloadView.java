package io.delayq.server.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;

/**
 * A payload as the job page shows it: JSON pretty-printed, text as it is, binary as a hex and
 * base64 excerpt; each cut to {@link #SHOWN_BYTES} (the whole is one download away).
 *
 * @param kind {@code json}, {@code text} or {@code binary}
 * @param text what is shown (escaped by the template), with control and bidi characters written
 *     as a backslash, {@code u} and four hex digits (see {@link Display#visible})
 * @param base64 for binary, the excerpt in base64; else ""
 * @param size the payload's size in bytes
 * @param truncated whether {@code text} shows only the start
 */
public record PayloadView(String kind, String text, String base64, int size, boolean truncated) {
  /** How much of a payload the page shows. */
  public static final int SHOWN_BYTES = 4 * 1024;
  private static final ObjectMapper JSON = new ObjectMapper();

  static PayloadView of(byte[] payload, boolean json) {
    boolean cut = payload.length > SHOWN_BYTES;
    String text = utf8(payload);
    if (text != null && json && !cut) {
      try {
        JsonNode tree = JSON.readTree(payload);
        String pretty = JSON.writerWithDefaultPrettyPrinter().writeValueAsString(tree);
        if (pretty.length() <= 2 * SHOWN_BYTES) {
          return new PayloadView("json", Display.visible(pretty), "", payload.length, false);
        }
        return new PayloadView("json", Display.visible(pretty.substring(0, SHOWN_BYTES)), "", payload.length, true);
      } catch (java.io.IOException notJson) {
        // shown as text
      }
    }
    byte[] shown = cut ? Arrays.copyOf(payload, SHOWN_BYTES) : payload;
    String shownText = text == null ? null : utf8Prefix(shown);
    if (shownText != null && printable(shownText)) {
      // why: a bidi override or C1 control in the text would show it as other text than it is
      return new PayloadView(json ? "json" : "text", Display.visible(shownText), "", payload.length, cut);
    }
    byte[] excerpt = Arrays.copyOf(payload, Math.min(payload.length, 512));
    String hex = HexFormat.ofDelimiter(" ").formatHex(excerpt);
    return new PayloadView("binary", hex, Base64.getEncoder().encodeToString(excerpt), payload.length,
        payload.length > excerpt.length);
  }

  private static String utf8(byte[] bytes) {
    try {
      return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }

  /** The text of a UTF-8 prefix, without a character cut in two at its end. */
  private static String utf8Prefix(byte[] bytes) {
    for (int drop = 0; drop < 4 && drop < bytes.length; drop++) {
      String text = utf8(Arrays.copyOf(bytes, bytes.length - drop));
      if (text != null) {
        return text;
      }
    }
    return utf8(bytes);
  }

  private static boolean printable(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < 0x20 && c != '\n' && c != '\r' && c != '\t') {
        return false;
      }
    }
    return true;
  }
}
