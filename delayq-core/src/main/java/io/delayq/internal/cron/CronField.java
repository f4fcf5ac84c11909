package io.delayq.internal.cron;

import java.util.List;

/** The six fields of a cron expression: their names, ranges and (for month and day of week) names. */
enum CronField {
  SECOND("second", 0, 59, List.of()),
  MINUTE("minute", 0, 59, List.of()),
  HOUR("hour", 0, 23, List.of()),
  DAY_OF_MONTH("day-of-month", 1, 31, List.of()),
  MONTH(
      "month",
      1,
      12,
      List.of("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")),
  // why: 0 and 7 are both Sunday (as in Vixie cron and Spring); the parser folds 7 into 0
  DAY_OF_WEEK("day-of-week", 0, 7, List.of("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"));

  final String label;
  final int min;
  final int max;
  /** Names in order, the first one standing for {@link #min}. */
  final List<String> names;

  CronField(String label, int min, int max, List<String> names) {
    this.label = label;
    this.min = min;
    this.max = max;
    this.names = names;
  }

  boolean isDayField() {
    return this == DAY_OF_MONTH || this == DAY_OF_WEEK;
  }

  /** The values a bare {@code *} stands for when a step follows it: Sunday to Saturday for days of week. */
  int starMax() {
    return this == DAY_OF_WEEK ? 6 : max;
  }

  String range() {
    String numbers = min + "-" + max;
    if (names.isEmpty()) {
      return numbers;
    }
    return numbers + " or " + names.get(0) + "-" + names.get(names.size() - 1);
  }
}
