package io.delayq.internal;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * The JSON envelope a list forwarder pushes in {@code ENVELOPE} format, built here for the
 * two-step mode; {@code forward-list.lua} builds the same bytes for the atomic one: {@code
 * {"id":…,"attempt":…,"dueAt":<epoch ms>,"payload":…}}. The payload is the JSON text itself for a
 * job scheduled as JSON, a JSON string when it is valid UTF-8, and otherwise {@code
 * "payloadBase64":"…"} (standard alphabet, padded) in its place: never a string of broken text.
 */
final class ListEnvelope {
  private ListEnvelope() {}

  static byte[] of(String id, int attempt, long dueMillis, byte[] payload, boolean json) {
    StringBuilder out = new StringBuilder(payload.length + id.length() + 64);
    out.append("{\"id\":");
    string(out, id);
    out.append(",\"attempt\":").append(attempt).append(",\"dueAt\":").append(dueMillis).append(',');
    String text = json && payload.length > 0 ? new String(payload, StandardCharsets.UTF_8) : utf8(payload);
    if (json && payload.length > 0) {
      out.append("\"payload\":").append(text);
    } else if (text != null) {
      out.append("\"payload\":");
      string(out, text);
    } else {
      out.append("\"payloadBase64\":\"").append(Base64.getEncoder().encodeToString(payload)).append('"');
    }
    return out.append('}').toString().getBytes(StandardCharsets.UTF_8);
  }

  /** The text, or null when the bytes are not strictly valid UTF-8. */
  private static String utf8(byte[] bytes) {
    try {
      return StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }

  // why: escapes exactly what the script escapes (quote, backslash, C0 controls and DEL), so
  // both modes push the same bytes for the same job
  private static void string(StringBuilder out, String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"') {
        out.append("\\\"");
      } else if (c == '\\') {
        out.append("\\\\");
      } else if (c < 0x20 || c == 0x7f) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    out.append('"');
  }
}
