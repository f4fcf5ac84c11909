package io.delayq.internal;

import io.delayq.InvalidRequestException;
import io.delayq.SortedSetAdoption;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The job id and JSON flag of an adopted sorted-set member. A small strict JSON reader of its own,
 * since delayq-core depends on no JSON library and needs only two facts: whether the member is a
 * well-formed JSON object or array, and the value of one top-level field.
 */
final class MemberIds {
  /** The id of a member, whether it is the hash because the field gave none, and whether it is JSON. */
  record Derived(String id, boolean hashed, boolean json) {}

  private final String field;

  /** {@code field} is the top-level JSON field holding the id, or {@code null} for hash ids. */
  MemberIds(String field) {
    this.field = field;
  }

  Derived derive(byte[] member) {
    Parsed parsed = Parsed.of(member, field);
    if (field != null && parsed.value != null && validId(parsed.value)) {
      return new Derived(parsed.value, false, parsed.container);
    }
    return new Derived(hashId(member), field != null, parsed.container);
  }

  static String hashId(byte[] member) {
    try {
      return SortedSetAdoption.HASH_ID_PREFIX
          + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(member));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by the Java platform", e);
    }
  }

  private static boolean validId(String id) {
    try {
      Rules.checkJobId(id);
      return true;
    } catch (InvalidRequestException e) {
      return false;
    }
  }

  /** One pass over the member's text; a member that is not well-formed JSON leaves both unset. */
  static final class Parsed {
    private static final int MAX_DEPTH = 256;
    boolean container;
    String value;
    private final String text;
    private final String wanted;
    private int at;

    private Parsed(String text, String wanted) {
      this.text = text;
      this.wanted = wanted;
    }

    static Parsed of(byte[] member, String field) {
      String text;
      try {
        text = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT)
            .decode(ByteBuffer.wrap(member))
            .toString();
      } catch (CharacterCodingException e) {
        return new Parsed("", field);
      }
      Parsed p = new Parsed(text, field);
      try {
        p.space();
        char first = p.peek();
        p.value(0);
        p.space();
        if (p.at != text.length()) {
          throw new IllegalArgumentException("trailing text");
        }
        p.container = first == '{' || first == '[';
      } catch (IllegalArgumentException | StringIndexOutOfBoundsException e) {
        p.container = false;
        p.value = null;
      }
      return p;
    }

    /** Reads one value; at depth 1 inside the top object, {@code key} is the field it belongs to. */
    private String value(int depth) {
      if (depth > MAX_DEPTH) {
        // why: a hostile member of a million '[' must not overflow the stack
        throw new IllegalArgumentException("nested too deep");
      }
      char c = peek();
      switch (c) {
        case '{' -> {
          at++;
          space();
          if (peek() == '}') {
            at++;
            return null;
          }
          while (true) {
            space();
            String key = string();
            space();
            expect(':');
            space();
            String v = value(depth + 1);
            if (depth == 0 && key.equals(wanted)) {
              // why: the last of duplicate fields wins, as in Python's and JavaScript's parsers
              value = v;
            }
            space();
            char next = text.charAt(at++);
            if (next == '}') {
              return null;
            }
            if (next != ',') {
              throw new IllegalArgumentException("expected , or }");
            }
          }
        }
        case '[' -> {
          at++;
          space();
          if (peek() == ']') {
            at++;
            return null;
          }
          while (true) {
            space();
            value(depth + 1);
            space();
            char next = text.charAt(at++);
            if (next == ']') {
              return null;
            }
            if (next != ',') {
              throw new IllegalArgumentException("expected , or ]");
            }
          }
        }
        case '"' -> {
          return string();
        }
        case 't' -> {
          literal("true");
          return null;
        }
        case 'f' -> {
          literal("false");
          return null;
        }
        case 'n' -> {
          literal("null");
          return null;
        }
        default -> {
          return number();
        }
      }
    }

    private String string() {
      expect('"');
      StringBuilder out = new StringBuilder();
      while (true) {
        char c = text.charAt(at++);
        if (c == '"') {
          return out.toString();
        }
        if (c < 0x20) {
          throw new IllegalArgumentException("control character in a string");
        }
        if (c != '\\') {
          out.append(c);
          continue;
        }
        char e = text.charAt(at++);
        switch (e) {
          case '"', '\\', '/' -> out.append(e);
          case 'b' -> out.append('\b');
          case 'f' -> out.append('\f');
          case 'n' -> out.append('\n');
          case 'r' -> out.append('\r');
          case 't' -> out.append('\t');
          case 'u' -> {
            String hex = text.substring(at, at + 4);
            if (!hex.chars().allMatch(h -> Character.digit(h, 16) >= 0)) {
              throw new IllegalArgumentException("bad \\u escape");
            }
            out.append((char) Integer.parseInt(hex, 16));
            at += 4;
          }
          default -> throw new IllegalArgumentException("bad escape");
        }
      }
    }

    private String number() {
      int start = at;
      if (peekOr() == '-') {
        at++;
      }
      if (peekOr() == '0') {
        at++;
      } else {
        digits();
      }
      if (peekOr() == '.') {
        at++;
        digits();
      }
      if (peekOr() == 'e' || peekOr() == 'E') {
        at++;
        if (peekOr() == '+' || peekOr() == '-') {
          at++;
        }
        digits();
      }
      return text.substring(start, at);
    }

    private void digits() {
      int start = at;
      while (at < text.length() && text.charAt(at) >= '0' && text.charAt(at) <= '9') {
        at++;
      }
      if (at == start) {
        throw new IllegalArgumentException("expected a digit");
      }
    }

    private void literal(String word) {
      if (!text.startsWith(word, at)) {
        throw new IllegalArgumentException("expected " + word);
      }
      at += word.length();
    }

    private void expect(char c) {
      if (text.charAt(at++) != c) {
        throw new IllegalArgumentException("expected " + c);
      }
    }

    private char peek() {
      return text.charAt(at);
    }

    private char peekOr() {
      return at < text.length() ? text.charAt(at) : '\0';
    }

    private void space() {
      while (at < text.length()) {
        char c = text.charAt(at);
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
          return;
        }
        at++;
      }
    }
  }
}
