package io.delayq.server.cli;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Text the commands print: times, tables, abbreviations, and the messages both backends share. */
final class Format {
  private Format() {}

  /** An instant as ISO-8601 UTC to the millisecond, or "-" for none. */
  static String instant(Instant instant) {
    return instant == null ? "-" : instant.truncatedTo(ChronoUnit.MILLIS).toString();
  }

  /** An instant and how far it is from {@code now}: {@code 2026-…Z (in 5m 0s)} or {@code (3s ago)}. */
  static String instant(Instant instant, Instant now) {
    if (instant == null) {
      return "-";
    }
    Duration d = Duration.between(now, instant);
    return instant(instant) + (d.isNegative() ? " (" + duration(d.negated()) + " ago)" : " (in " + duration(d) + ")");
  }

  /** A duration the way people say it: {@code 450ms}, {@code 12.3s}, {@code 5m 0s}, {@code 2h 5m}, {@code 3d 4h}. */
  static String duration(Duration d) {
    long ms = d.toMillis();
    if (ms < 1_000) {
      return ms + "ms";
    }
    if (ms < 60_000) {
      return String.format(Locale.ROOT, "%.1fs", ms / 1000.0);
    }
    long s = ms / 1_000;
    if (s < 3_600) {
      return (s / 60) + "m " + (s % 60) + "s";
    }
    if (s < 86_400) {
      return (s / 3_600) + "h " + (s % 3_600 / 60) + "m";
    }
    return (s / 86_400) + "d " + (s % 86_400 / 3_600) + "h";
  }

  /** The first line of {@code text}, cut to {@code max} characters with "..." when longer. */
  static String abbreviate(String text, int max) {
    if (text == null) {
      return "";
    }
    String line = text.strip();
    int newline = line.indexOf('\n');
    boolean cut = false;
    if (newline >= 0) {
      line = line.substring(0, newline).stripTrailing();
      cut = true;
    }
    if (line.length() > max) {
      line = line.substring(0, Math.max(0, max - 3));
      cut = true;
    }
    return cut ? line + "..." : line;
  }

  /** The URL without any password, for printing. */
  static String redact(String url) {
    return url.replaceAll("//[^@/,]*@", "//***@");
  }

  /**
   * No queue by this name at {@code target} (a server URL or a Redis URL): said the CLI way, with
   * the command that makes one.
   */
  static String noSuchQueue(String queue, String target) {
    return "no queue '" + queue + "' at " + target + "; `delayq enqueue " + queue + " PAYLOAD` creates it with its"
        + " first job (add --partitions N for more than one partition), and `delayq stats` lists the queues there";
  }

  static String noSuchJob(String queue, String id) {
    return "job '" + id + "' in queue '" + queue + "': no such job; it may have run, been cancelled, or never existed";
  }

  static String noSuchSchedule(String queue, String name) {
    return "queue '" + queue + "' has no schedule named '" + name + "'; `delayq schedule ls " + queue + "` lists them";
  }

  static String noSuchDeadJob(String queue, String id) {
    return "job '" + id + "' in queue '" + queue + "': no dead job has that id;"
        + " `delayq dead list " + queue + "` shows the dead jobs";
  }

  /**
   * A call that may or may not have taken effect (exit code {@link ExitCodes#OUTCOME_UNKNOWN}): what
   * happened, then what is safe to do next, on one line.
   */
  static String outcomeUnknown(String what) {
    String text = what == null || what.isBlank() ? "no answer came in time" : what.strip().replaceAll("\\s*\\R\\s*", " ");
    return "outcome unknown: " + text + (text.endsWith(".") ? "" : ".")
        + " The call may or may not have taken effect: `delayq get` shows the job, and an enqueue made with"
        + " --keep may be repeated safely as it was (without --keep, a job that already ran would run again)";
  }

  /** What to do about a job a worker holds now. */
  static String activeHint(String queue, String id) {
    return "wait for that attempt to end (`delayq get " + queue + " " + id + "` shows its lease), then try again";
  }

  /**
   * A table: the header, then the rows, columns separated by two spaces. Columns listed in {@code
   * rightAligned} (numbers) are aligned right; the last column is not padded. Cells are escaped
   * with {@link TerminalText#line} first, so that they are measured as they are shown.
   */
  static String table(List<String> header, List<List<String>> rows, int... rightAligned) {
    List<List<String>> all = new ArrayList<>();
    all.add(header);
    all.addAll(rows);
    int[] widths = widths(all);
    StringBuilder out = new StringBuilder();
    for (List<String> row : all) {
      out.append(row(row, widths, rightAligned));
    }
    return out.toString();
  }

  /** The width of each column: its widest cell as shown. */
  static int[] widths(List<List<String>> rows) {
    int[] widths = new int[rows.get(0).size()];
    for (List<String> row : rows) {
      for (int c = 0; c < widths.length; c++) {
        widths[c] = Math.max(widths[c], TerminalText.line(row.get(c)).length());
      }
    }
    return widths;
  }

  /** One line of a table laid out by {@code widths}; a wider cell pushes the rest of its row right. */
  static String row(List<String> row, int[] widths, int... rightAligned) {
    StringBuilder line = new StringBuilder();
    for (int c = 0; c < widths.length; c++) {
      String cell = TerminalText.line(row.get(c));
      String pad = " ".repeat(Math.max(0, widths[c] - cell.length()));
      if (c > 0) {
        line.append("  ");
      }
      if (contains(rightAligned, c)) {
        line.append(pad).append(cell);
      } else {
        line.append(cell);
        if (c < widths.length - 1) {
          line.append(pad);
        }
      }
    }
    return line.toString().stripTrailing() + System.lineSeparator();
  }

  private static boolean contains(int[] values, int value) {
    for (int v : values) {
      if (v == value) {
        return true;
      }
    }
    return false;
  }
}
