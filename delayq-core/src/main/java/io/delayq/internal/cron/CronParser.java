package io.delayq.internal.cron;

import io.delayq.InvalidRequestException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Turns the text of a cron expression into the bit sets of {@link Cron}. A hand-written scanner, no
 * regular expressions: every step looks at each character a bounded number of times, and the input is
 * capped at {@link #MAX_LENGTH} characters.
 */
final class CronParser {
  static final int MAX_LENGTH = 256;

  private static final String FIELD = "cron";
  private static final String FIELDS_HELP =
      "write 5 fields (minute hour day-of-month month day-of-week) or 6 (second minute hour"
          + " day-of-month month day-of-week), e.g. '0 3 * * *' for 03:00 every day";
  private static final Map<String, String> MACROS =
      Map.of(
          "@yearly", "0 0 1 1 *",
          "@annually", "0 0 1 1 *",
          "@monthly", "0 0 1 * *",
          "@weekly", "0 0 * * 0",
          "@daily", "0 0 * * *",
          "@midnight", "0 0 * * *",
          "@hourly", "0 * * * *");
  private static final String MACRO_LIST =
      "@yearly (@annually), @monthly, @weekly, @daily (@midnight), @hourly";
  /** The longest day of month each month can have (February: 29, in leap years). */
  private static final int[] MAX_DAYS = {0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

  private final String expression;
  private CronField[] layout;

  private CronParser(String expression) {
    this.expression = expression;
  }

  static Cron parse(String text) {
    if (text == null) {
      throw new InvalidRequestException(FIELD, "is missing; " + FIELDS_HELP);
    }
    if (text.length() <= 4 * MAX_LENGTH) {
      for (int i = 0; i < text.length(); i++) {
        char c = text.charAt(i);
        // why: line breaks and other control characters are whitespace to Java but would be stored
        // and shown back as they are; fields are separated by spaces (or tabs)
        if ((c < 0x20 && c != '\t') || c == 0x7f || (c >= 0x80 && (Character.isWhitespace(c) || Character.isSpaceChar(c)))) {
          throw new InvalidRequestException(
              FIELD,
              "contains U+" + String.format("%04X", (int) c) + " at index " + i
                  + ", a control or unusual space character; separate the fields with spaces");
        }
      }
    }
    String trimmed = text.strip();
    if (trimmed.length() > MAX_LENGTH) {
      throw new InvalidRequestException(
          FIELD,
          "is "
              + trimmed.length()
              + " characters long; the limit is "
              + MAX_LENGTH
              + ". A schedule that needs more is better written as several schedules");
    }
    if (trimmed.isEmpty()) {
      throw new InvalidRequestException(FIELD, "is empty; " + FIELDS_HELP);
    }
    return new CronParser(trimmed).parse();
  }

  private Cron parse() {
    String fieldsText = expression;
    if (expression.startsWith("@")) {
      fieldsText = MACROS.get(expression.toLowerCase(Locale.ROOT));
      if (fieldsText == null) {
        throw new InvalidRequestException(
            FIELD,
            "'"
                + expression
                + "' is not a known macro; use one of "
                + MACRO_LIST
                + ", or write the fields ("
                + FIELDS_HELP
                + ")");
      }
    }
    List<String> parts = splitOnWhitespace(fieldsText);
    if (parts.size() == 5) {
      layout =
          new CronField[] {
            CronField.MINUTE, CronField.HOUR, CronField.DAY_OF_MONTH, CronField.MONTH, CronField.DAY_OF_WEEK
          };
      parts.add(0, "0");
    } else if (parts.size() == 6) {
      layout = CronField.values();
    } else {
      throw new InvalidRequestException(
          FIELD, "'" + expression + "' has " + parts.size() + " field" + (parts.size() == 1 ? "" : "s") + "; " + FIELDS_HELP);
    }
    long[] bits = new long[6];
    for (CronField field : CronField.values()) {
      bits[field.ordinal()] = parseField(parts.get(field.ordinal()), field);
    }
    String dayOfMonth = parts.get(CronField.DAY_OF_MONTH.ordinal());
    String dayOfWeek = parts.get(CronField.DAY_OF_WEEK.ordinal());
    boolean dayOfMonthRestricted = isRestricted(dayOfMonth);
    boolean dayOfWeekRestricted = isRestricted(dayOfWeek);
    if (dayOfMonthRestricted && dayOfWeekRestricted) {
      throw new InvalidRequestException(
          FIELD,
          describe(CronField.DAY_OF_MONTH)
              + " '"
              + dayOfMonth
              + "' and "
              + describe(CronField.DAY_OF_WEEK)
              + " '"
              + dayOfWeek
              + "' are both restricted in '"
              + expression
              + "'; cron implementations disagree on what that means (Vixie cron fires when either"
              + " matches, Spring and Quartz only when both do), so delayq accepts neither: restrict"
              + " one of them and put * (or ?) in the other");
    }
    if (dayOfMonthRestricted) {
      checkSomeDayExists(bits[CronField.DAY_OF_MONTH.ordinal()], (int) bits[CronField.MONTH.ordinal()], dayOfMonth, parts.get(CronField.MONTH.ordinal()));
    }
    return new Cron(
        expression,
        bits[CronField.SECOND.ordinal()],
        bits[CronField.MINUTE.ordinal()],
        (int) bits[CronField.HOUR.ordinal()],
        bits[CronField.DAY_OF_MONTH.ordinal()],
        (int) bits[CronField.MONTH.ordinal()],
        (int) bits[CronField.DAY_OF_WEEK.ordinal()]);
  }

  private static boolean isRestricted(String dayField) {
    return !dayField.equals("*") && !dayField.equals("?");
  }

  private void checkSomeDayExists(long days, int months, String dayText, String monthText) {
    for (int month = 1; month <= 12; month++) {
      if ((months & (1 << month)) != 0 && Long.numberOfTrailingZeros(days) <= MAX_DAYS[month]) {
        return;
      }
    }
    throw new InvalidRequestException(
        FIELD,
        describe(CronField.DAY_OF_MONTH)
            + " '"
            + dayText
            + "' never occurs in "
            + describe(CronField.MONTH)
            + " '"
            + monthText
            + "' in '"
            + expression
            + "', so the schedule would never fire; pick days that exist in those months (February has"
            + " at most 29 days; April, June, September and November 30)");
  }

  /** "field 3 (day-of-month)", numbered as the caller wrote the expression. */
  private String describe(CronField field) {
    for (int i = 0; i < layout.length; i++) {
      if (layout[i] == field) {
        return "field " + (i + 1) + " (" + field.label + ")";
      }
    }
    return field.label;
  }

  private long parseField(String text, CronField field) {
    if (text.equals("?")) {
      if (!field.isDayField()) {
        throw fieldError(field, text, "uses '?', which only day-of-month and day-of-week accept", "write * instead");
      }
      return allBits(field);
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '#') {
        throw fieldError(
            field, text, "uses '#' (the n-th weekday of the month), which delayq does not support", "list the days of month instead, or schedule from code");
      }
      boolean allowed = (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '*' || c == '?' || c == ',' || c == '-' || c == '/';
      if (!allowed) {
        throw fieldError(field, text, "has the unexpected character '" + c + "'", "use numbers, names, '*', ',', '-' and '/' only");
      }
    }
    long bits = 0;
    int start = 0;
    while (true) {
      int comma = text.indexOf(',', start);
      String item = comma < 0 ? text.substring(start) : text.substring(start, comma);
      if (item.isEmpty()) {
        throw fieldError(field, text, "has an empty list item", "remove the extra ',' or put a value between the commas");
      }
      bits |= parseItem(item, field);
      if (comma < 0) {
        break;
      }
      start = comma + 1;
    }
    if (field == CronField.DAY_OF_WEEK && (bits & (1L << 7)) != 0) {
      bits = (bits & ~(1L << 7)) | 1L;
    }
    return bits;
  }

  private long parseItem(String item, CronField field) {
    if (item.indexOf('?') >= 0) {
      throw fieldError(field, item, "uses '?' inside a list, range or step", "write '?' alone, as the whole field (or use *)");
    }
    int slash = item.indexOf('/');
    String rangeText = slash < 0 ? item : item.substring(0, slash);
    int step = 1;
    if (slash >= 0) {
      String stepText = item.substring(slash + 1);
      if (stepText.indexOf('/') >= 0) {
        throw fieldError(field, item, "has more than one '/'", "write one step, e.g. */15");
      }
      if (rangeText.isEmpty()) {
        throw fieldError(field, item, "has no range before '/'", "write */" + stepText + " or a range such as " + field.min + "-" + field.max + "/" + stepText);
      }
      step = parseStep(stepText, item, field);
    }
    int low;
    int high;
    if (rangeText.equals("*")) {
      low = field.min;
      high = slash >= 0 ? field.starMax() : field.max;
    } else {
      int dash = rangeText.indexOf('-');
      if (dash < 0) {
        low = parseValue(rangeText, item, field, false);
        high = slash < 0 ? low : Math.max(low, field.starMax());
      } else {
        String lowText = rangeText.substring(0, dash);
        String highText = rangeText.substring(dash + 1);
        if (lowText.isEmpty() || highText.isEmpty() || highText.indexOf('-') >= 0) {
          checkUnsupported(rangeText, item, field);
          throw fieldError(field, item, "is not a range", "write a range as low-high, e.g. " + field.min + "-" + (field.min + 5));
        }
        low = parseValue(lowText, item, field, false);
        high = parseValue(highText, item, field, true);
        if (low > high) {
          String hint =
              field == CronField.DAY_OF_WEEK
                  ? "write it from low to high (Sunday is 0 or 7: e.g. 5-7 for Friday to Sunday), or as a list"
                  : "write it from low to high, or as a list (e.g. " + lowText + "-" + field.max + "," + field.min + "-" + highText + ")";
          throw fieldError(field, item, "is a reversed range (" + low + " > " + high + ")", hint);
        }
      }
    }
    long bits = 0;
    for (int value = low; value <= high; value += step) {
      bits |= 1L << value;
    }
    return bits;
  }

  private int parseStep(String stepText, String item, CronField field) {
    int span = field.starMax() - field.min + 1;
    if (!isDigits(stepText)) {
      throw fieldError(field, item, "has the step '" + stepText + "', which is not a number", "write a step from 1 to " + span + ", e.g. */15");
    }
    int step = stepText.length() > 4 ? Integer.MAX_VALUE : Integer.parseInt(stepText);
    if (step == 0) {
      throw fieldError(field, item, "has the step 0", "write a step from 1 to " + span + " (1 means every value)");
    }
    if (step > span) {
      throw fieldError(field, item, "has the step " + stepText + ", larger than the field's " + span + " values", "write a step from 1 to " + span);
    }
    return step;
  }

  private int parseValue(String text, String item, CronField field, boolean rangeEnd) {
    if (isDigits(text)) {
      int value = text.length() > 4 ? Integer.MAX_VALUE : Integer.parseInt(text);
      if (value < field.min || value > field.max) {
        throw fieldError(field, item, "is out of range " + field.min + "-" + field.max, "use a value from " + field.range());
      }
      return value;
    }
    String upper = text.toUpperCase(Locale.ROOT);
    int index = field.names.indexOf(upper);
    if (index >= 0) {
      // why: SUN ends a range as 7 so that SAT-SUN reads as 6-7, and starts one as 0 (SUN-SAT = 0-6)
      return field == CronField.DAY_OF_WEEK && index == 0 && rangeEnd ? 7 : field.min + index;
    }
    checkUnsupported(text, item, field);
    String expected = field.names.isEmpty() ? "a number from " + field.range() : "a number or a name, " + field.range();
    throw fieldError(field, item, "has '" + text + "', which is not " + (field.names.isEmpty() ? "a number" : "a number or a " + field.label + " name"), "use " + expected);
  }

  private void checkUnsupported(String text, String item, CronField field) {
    String upper = text.toUpperCase(Locale.ROOT);
    if (upper.contains("L")) {
      throw fieldError(field, item, "uses 'L' (last day), which delayq does not support", field == CronField.DAY_OF_WEEK ? "list the days instead, or schedule from code" : "write the days of month explicitly, or compute the last day from code");
    }
    if (upper.endsWith("W")) {
      throw fieldError(field, item, "uses 'W' (nearest weekday), which delayq does not support", "use a day-of-month, or restrict day-of-week instead (e.g. MON-FRI)");
    }
  }

  private InvalidRequestException fieldError(CronField field, String token, String problem, String advice) {
    return new InvalidRequestException(
        FIELD, describe(field) + " '" + token + "' " + problem + " in '" + expression + "'; " + advice);
  }

  private static long allBits(CronField field) {
    long bits = 0;
    for (int value = field.min; value <= field.starMax(); value++) {
      bits |= 1L << value;
    }
    return bits;
  }

  private static boolean isDigits(String text) {
    if (text.isEmpty()) {
      return false;
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return true;
  }

  private static List<String> splitOnWhitespace(String text) {
    List<String> parts = new ArrayList<>();
    int i = 0;
    while (i < text.length()) {
      while (i < text.length() && (text.charAt(i) == ' ' || text.charAt(i) == '\t')) {
        i++;
      }
      int start = i;
      while (i < text.length() && text.charAt(i) != ' ' && text.charAt(i) != '\t') {
        i++;
      }
      if (i > start) {
        parts.add(text.substring(start, i));
      }
    }
    return parts;
  }
}
