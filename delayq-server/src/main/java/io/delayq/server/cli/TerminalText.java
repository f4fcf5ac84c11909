package io.delayq.server.cli;

import java.io.FilterWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;

/**
 * What the command line prints, made safe for a terminal. Ids, payloads, last errors and messages
 * come from whoever scheduled the job; printed raw, an ESC sequence could clear the screen, retitle
 * the window or fake a prompt, a CR could overwrite a line, and a bidi override could show {@code
 * exe.txt} as {@code txt.exe}. So every C0 control but tab and newline, DEL, every C1 control, the
 * bidi controls and the line and paragraph separators are written as {@code \}{@code uXXXX}: the
 * same form JSON uses, so {@code --json} output stays valid JSON that decodes to the exact text. A
 * CR right before a newline (a Windows line end) is kept.
 */
public final class TerminalText {
  private TerminalText() {}

  /** A writer that escapes as described above, flushing on every println. */
  public static PrintWriter printWriter(Writer target) {
    return new PrintWriter(new EscapingWriter(target), true);
  }

  /** The text as {@link #printWriter} would print it, for one line: tab, newline and CR escaped too. */
  public static String line(String text) {
    StringBuilder out = null;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (escaped(c) || c == '\n' || c == '\t' || c == '\r') {
        if (out == null) {
          out = new StringBuilder(text.length() + 16).append(text, 0, i);
        }
        appendEscape(out, c);
      } else if (out != null) {
        out.append(c);
      }
    }
    return out == null ? text : out.toString();
  }

  /** Whether a character is escaped wherever it appears (CR is decided by what follows it). */
  static boolean escaped(char c) {
    return (c < 0x20 && c != '\n' && c != '\t' && c != '\r')
        || (c >= 0x7f && c <= 0x9f)
        || c == 0x061c // Arabic letter mark
        || c == 0x200e || c == 0x200f // left-to-right and right-to-left marks
        || (c >= 0x202a && c <= 0x202e) // embeddings and overrides
        || (c >= 0x2066 && c <= 0x2069) // isolates
        || c == 0x2028 || c == 0x2029; // line and paragraph separators
  }

  private static void appendEscape(StringBuilder out, char c) {
    out.append("\\u").append(Character.forDigit(c >> 12 & 0xf, 16)).append(Character.forDigit(c >> 8 & 0xf, 16))
        .append(Character.forDigit(c >> 4 & 0xf, 16)).append(Character.forDigit(c & 0xf, 16));
  }

  private static final class EscapingWriter extends FilterWriter {
    /** A CR seen last, not yet written: kept if a newline follows, else escaped. */
    private boolean pendingCr;

    EscapingWriter(Writer target) {
      super(target);
    }

    @Override
    public void write(int c) throws IOException {
      write(new char[] {(char) c}, 0, 1);
    }

    @Override
    public void write(String text, int off, int len) throws IOException {
      write(text.toCharArray(), off, len);
    }

    @Override
    public void write(char[] chars, int off, int len) throws IOException {
      StringBuilder out = new StringBuilder(len + 16);
      for (int i = off; i < off + len; i++) {
        char c = chars[i];
        if (pendingCr) {
          pendingCr = false;
          if (c == '\n') {
            out.append('\r');
          } else {
            appendEscape(out, '\r');
          }
        }
        if (c == '\r') {
          pendingCr = true;
        } else if (escaped(c)) {
          appendEscape(out, c);
        } else {
          out.append(c);
        }
      }
      // why: FilterWriter's own write(String, …) hands the text to the target, not back to this class
      super.write(out.toString(), 0, out.length());
    }

    @Override
    public void flush() throws IOException {
      if (pendingCr) {
        pendingCr = false;
        StringBuilder cr = new StringBuilder();
        appendEscape(cr, '\r');
        super.write(cr.toString(), 0, cr.length());
      }
      super.flush();
    }

    @Override
    public void close() throws IOException {
      flush();
      super.close();
    }
  }
}
