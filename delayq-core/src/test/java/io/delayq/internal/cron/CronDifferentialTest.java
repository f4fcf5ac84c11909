package io.delayq.internal.cron;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayq.InvalidRequestException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.springframework.scheduling.support.CronExpression;

/**
 * Walks delayq's {@link Cron} and Spring's {@link CronExpression} from the same instants, 2010 to 2035,
 * in five zones with odd daylight saving changes and UTC, for hand-picked and seeded random expressions,
 * and compares every occurrence. They must agree everywhere but at DST transitions; there, and at
 * every occurrence near a transition whether the two agree or not, delayq's value must be what delayq's
 * rule says, computed by the {@code byDelayqRule} methods: Spring's own matcher on local date-times (no zone
 * involved) plus the rule written out plainly.
 */
class CronDifferentialTest {
  private static final List<ZoneId> ZONES =
      List.of(
          ZoneOffset.UTC,
          ZoneId.of("Europe/Amsterdam"),
          ZoneId.of("America/New_York"),
          ZoneId.of("America/Sao_Paulo"),
          ZoneId.of("Africa/Cairo"),
          ZoneId.of("Australia/Lord_Howe"));
  private static final Instant START = Instant.parse("2010-01-01T00:00:00Z");
  private static final Instant END = Instant.parse("2036-01-01T00:00:00Z");
  /** Occurrences walked from START, per expression and zone: all of them for monthly or rarer schedules. */
  private static final int LONG_WALK = 320;
  /** Occurrences walked from each start near a transition (26 h and 70 s before it). */
  private static final int WINDOW_WALK = 30;
  private static final Duration NEAR = Duration.ofHours(2);
  private static final int RANDOM_EXPRESSIONS = 80;

  private static final List<String> HAND_PICKED =
      List.of(
          "@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly",
          "0 0 * * *", "30 2 * * *", "0 2 * * *", "59 2 * * *", "30 1 * * *", "0 1 * * *", "0 3 * * *",
          "15 0 * * *", "30 23 * * *", "0 0 * * MON", "0 0 * * 0", "0 12 * * MON-FRI", "0 9 * * SAT,SUN",
          "*/15 * * * *", "*/5 * * * *", "*/20 * * * *", "0,30 * * * *", "0 * * * *", "30 * * * *",
          "* * * * *", "0 */2 * * *", "*/15 0-3 * * *", "0 0 1 * *", "0 0 29 2 *", "0 0 31 * *",
          "0 0 1 1 *", "0 2 1-7 * *", "0 30 2 ? * SUN", "*/10 * * * * *", "0 0,30 * * * *",
          "30 30 1-2 * * *", "0 0 0 * * ?", "* * 2 * * *", "0 0 0 29 2 ?", "5 4 3 2 1 *");

  private record Walk(String expression, Cron ours, CronExpression spring, ZoneId zone, Map<Instant, TreeSet<Instant>> byRule) {
    Walk(String expression, Cron ours, CronExpression spring, ZoneId zone) {
      this(expression, ours, spring, zone, new HashMap<>());
    }

    /** delayq's rule around one transition, computed once per expression and zone. */
    TreeSet<Instant> byRule(ZoneOffsetTransition transition) {
      return byRule.computeIfAbsent(
          transition.getInstant(), at -> byDelayqRule(spring, ours.isSubHourly(), transition, zone.getRules()));
    }
  }

  private final Map<String, Map<String, Integer>> differencesByZone = new TreeMap<>();
  private final Map<String, List<String>> samplesByKind = new TreeMap<>();
  private final Map<String, Integer> kindCounts = new TreeMap<>();
  private long compared;
  private long ruleChecks;
  private long oursNanos;
  private long springNanos;
  private long ruleNanos;

  @Test
  void agreesWithSpringEverywhereButAtDstTransitionsWhereDelayqsRuleHolds() {
    long started = System.nanoTime();
    List<String> expressions = new ArrayList<>(HAND_PICKED);
    expressions.addAll(randomExpressions(new Random(20_260_329L), RANDOM_EXPRESSIONS));
    for (ZoneId zone : ZONES) {
      differencesByZone.put(zone.getId(), new TreeMap<>());
    }
    for (String expression : expressions) {
      Cron ours = Cron.parse(expression);
      CronExpression spring = CronExpression.parse(springForm(expression));
      for (ZoneId zone : ZONES) {
        Walk walk = new Walk(expression, ours, spring, zone);
        compare(walk, START, END, LONG_WALK);
        for (ZoneOffsetTransition transition : transitions(zone)) {
          Instant at = transition.getInstant();
          Instant until = at.plus(Duration.ofHours(26));
          compare(walk, at.minus(Duration.ofHours(26)), until, WINDOW_WALK);
          compare(walk, at.minusSeconds(70), until, WINDOW_WALK);
        }
      }
    }
    long millis = (System.nanoTime() - started) / 1_000_000;

    System.out.printf(
        "cron differential: %d expressions x %d zones, %,d occurrences compared with Spring %s, %,d checked"
            + " against delayq's rule near transitions, in %,d ms (delayq %,d ms, Spring %,d ms, rule checks %,d ms)%n",
        expressions.size(), ZONES.size(), compared, CronExpression.class.getPackage().getImplementationVersion(),
        ruleChecks, millis, oursNanos / 1_000_000, springNanos / 1_000_000, ruleNanos / 1_000_000);
    differencesByZone.forEach((zone, kinds) -> System.out.printf("  %-20s DST differences %s%n", zone, kinds));
    kindCounts.forEach((kind, count) -> System.out.printf("  %,7d x %s%n", count, kind));
    samplesByKind.forEach(
        (kind, samples) -> {
          System.out.println("  " + kind + ", e.g.:");
          samples.forEach(sample -> System.out.println("      " + sample));
        });

    assertThat(compared).isGreaterThan(300_000);
    assertThat(ruleChecks).isGreaterThan(50_000);
    assertThat(differencesByZone.get("Z")).as("differences in UTC").isEmpty();
    for (ZoneId zone : ZONES.subList(1, ZONES.size())) {
      assertThat(differencesByZone.get(zone.getId())).as("differences in %s", zone).isNotEmpty();
    }
  }

  /** Walks both from {@code from} until both pass {@code until} or {@code limit} steps were taken. */
  private void compare(Walk walk, Instant from, Instant until, int limit) {
    ZoneRules rules = walk.zone().getRules();
    Instant cursor = from;
    for (int step = 0; step < limit; step++) {
      long t0 = System.nanoTime();
      Instant ours = walk.ours().nextAfter(cursor, walk.zone());
      long t1 = System.nanoTime();
      Instant spring = walk.spring().next(cursor.atZone(walk.zone())).toInstant();
      long t2 = System.nanoTime();
      oursNanos += t1 - t0;
      springNanos += t2 - t1;
      compared++;
      String what = walk.expression() + " in " + walk.zone() + " after " + cursor.atZone(walk.zone()) + " (Spring: " + spring + ")";
      long t3 = System.nanoTime();
      ZoneOffsetTransition near = transitionNear(rules, cursor);
      if (near != null) {
        ruleChecks++;
        Instant expected = walk.byRule(near).higher(cursor);
        if (expected != null) {
          assertThat(ours).as(what).isEqualTo(expected);
        } else {
          assertThat(ours).as(what).isAfter(near.getInstant().plus(NEAR));
        }
      } else if (transitionNear(rules, ours) != null || transitionNear(rules, spring) != null) {
        // a sparse schedule whose previous occurrence was long before the transition
        ruleChecks++;
        assertThat(ours).as(what).isEqualTo(byDelayqRule(walk.spring(), walk.ours().isSubHourly(), cursor, walk.zone()));
      }
      ruleNanos += System.nanoTime() - t3;
      if (!ours.equals(spring)) {
        classify(walk, cursor, ours, spring);
      }
      // why: Spring can answer with the start itself (see classify); delayq's value moves on
      cursor = ours.isBefore(spring) || !spring.isAfter(cursor) ? ours : spring;
      if (cursor.isAfter(until)) {
        return;
      }
    }
  }

  /** The transition whose NEAR surroundings hold {@code instant}, or null. */
  private static ZoneOffsetTransition transitionNear(ZoneRules rules, Instant instant) {
    ZoneOffsetTransition next = rules.nextTransition(instant);
    if (next != null && !next.getInstant().minus(NEAR).isAfter(instant)) {
      return next;
    }
    ZoneOffsetTransition previous = rules.previousTransition(instant.plusNanos(1));
    if (previous != null && previous.getInstant().plus(NEAR).isAfter(instant)) {
      return previous;
    }
    return null;
  }

  /**
   * Says how Spring differs at a transition. Asserts that there is one: within NEAR of the earlier
   * value or of the cursor. That delayq's value is delayq's rule was asserted by the caller.
   */
  private void classify(Walk walk, Instant cursor, Instant ours, Instant spring) {
    ZoneRules rules = walk.zone().getRules();
    String where = walk.expression() + " in " + walk.zone() + " after " + cursor.atZone(walk.zone());
    // why: the two agree up to the earlier of their values, so that is where they part
    ZoneOffsetTransition transition = transitionNear(rules, ours.isBefore(spring) ? ours : spring);
    if (transition == null) {
      transition = transitionNear(rules, cursor);
    }
    assertThat(transition).as("delayq %s and Spring %s differ away from any transition: %s", ours, spring, where).isNotNull();
    String kind;
    assertThat(ours).as("delayq moves on: %s", where).isAfter(cursor);
    if (transition.isGap()) {
      LocalDateTime firstInGap = walk.spring().next(transition.getDateTimeBefore().minusSeconds(1));
      boolean inGap = firstInGap.isBefore(transition.getDateTimeAfter());
      if (inGap && spring.equals(firstInGap.toInstant(transition.getOffsetBefore()))) {
        kind = "gap: Spring runs the missing time shifted by the gap's length";
      } else if (spring.isAfter(ours)) {
        kind = "gap: Spring skips the run delayq makes at the gap's end";
      } else {
        kind = "gap: other";
      }
    } else {
      ZonedDateTime springLocal = spring.atZone(walk.zone());
      boolean secondInstant =
          rules.getValidOffsets(springLocal.toLocalDateTime()).size() == 2
              && springLocal.getOffset().equals(transition.getOffsetAfter());
      if (!spring.isAfter(cursor)) {
        kind = "overlap: Spring answers with the start itself, not a later time";
      } else if (spring.isBefore(ours) && secondInstant && !walk.ours().isSubHourly()) {
        kind = "overlap: Spring runs a repeated time again, at its second instant";
      } else if (spring.isAfter(ours) && walk.ours().isSubHourly()) {
        kind = "overlap, sub-hourly: Spring skips the second pass of the repeated times";
      } else {
        kind = "overlap: other";
      }
    }
    assertThat(kind).as("how Spring differs: delayq %s, Spring %s: %s", ours, spring, where).doesNotEndWith("other");
    differencesByZone.get(walk.zone().getId()).merge(kind.substring(0, kind.indexOf(':')), 1, Integer::sum);
    List<String> samples = samplesByKind.computeIfAbsent(kind + " (" + walk.zone().getId() + ")", k -> new ArrayList<>());
    if (samples.size() < 2) {
      samples.add(where + ": delayq " + ours.atZone(walk.zone()) + ", Spring " + spring.atZone(walk.zone()));
    }
    kindCounts.merge(kind, 1, Integer::sum);
  }

  /**
   * delayq's rule written out plainly, for the first occurrence after {@code after}: the matching local
   * times (Spring's matcher on LocalDateTime: no zone involved) mapped to instants — a time in a gap to
   * the gap's end, a time in an overlap to its first instant, and for a sub-hourly expression to its
   * second instant too — and the earliest of those.
   */
  static Instant byDelayqRule(CronExpression matcher, boolean subHourly, Instant after, ZoneId zone) {
    ZoneRules rules = zone.getRules();
    // why: a repeated local time up to one shift earlier than after's can map to an instant after it
    LocalDateTime local = LocalDateTime.ofInstant(after, zone).minusHours(3);
    Instant best = null;
    while ((local = matcher.next(local)) != null) {
      List<Instant> candidates = byDelayqRule(local, subHourly, rules);
      // why: first instants never decrease with local time, so once one passes best nothing later wins
      if (best != null && candidates.get(0).isAfter(best)) {
        return best;
      }
      for (Instant candidate : candidates) {
        if (candidate.isAfter(after) && (best == null || candidate.isBefore(best))) {
          best = candidate;
        }
      }
    }
    return best;
  }

  /** The instants delayq's rule gives one matching local time, the first one first. */
  private static List<Instant> byDelayqRule(LocalDateTime local, boolean subHourly, ZoneRules rules) {
    List<ZoneOffset> offsets = rules.getValidOffsets(local);
    if (offsets.isEmpty()) {
      return List.of(rules.getTransition(local).getInstant());
    }
    if (offsets.size() == 1) {
      return List.of(local.toInstant(offsets.get(0)));
    }
    ZoneOffsetTransition overlap = rules.getTransition(local);
    Instant first = local.toInstant(overlap.getOffsetBefore());
    return subHourly ? List.of(first, local.toInstant(overlap.getOffsetAfter())) : List.of(first);
  }

  /**
   * delayq's rule written out plainly, for the instants within NEAR of one transition: every local
   * time that can map there and matches (Spring's matcher on LocalDateTime: no zone involved) is
   * mapped to instants — a time in a gap to the gap's end, a time in an overlap to its first instant,
   * and for a sub-hourly expression to its second instant too.
   */
  static TreeSet<Instant> byDelayqRule(CronExpression matcher, boolean subHourly, ZoneOffsetTransition transition, ZoneRules rules) {
    Instant windowStart = transition.getInstant().minus(NEAR);
    Instant windowEnd = transition.getInstant().plus(NEAR);
    int low = Math.min(transition.getOffsetBefore().getTotalSeconds(), transition.getOffsetAfter().getTotalSeconds());
    int high = Math.max(transition.getOffsetBefore().getTotalSeconds(), transition.getOffsetAfter().getTotalSeconds());
    // why: an instant i comes from the local time i + offset, for one of the two offsets
    LocalDateTime local = LocalDateTime.ofEpochSecond(windowStart.getEpochSecond() + low - 1, 0, ZoneOffset.UTC);
    LocalDateTime localEnd = LocalDateTime.ofEpochSecond(windowEnd.getEpochSecond() + high, 0, ZoneOffset.UTC);
    TreeSet<Instant> result = new TreeSet<>();
    while ((local = matcher.next(local)) != null && !local.isAfter(localEnd)) {
      List<Instant> candidates = byDelayqRule(local, subHourly, rules);
      for (Instant candidate : candidates) {
        if (!candidate.isBefore(windowStart) && !candidate.isAfter(windowEnd)) {
          result.add(candidate);
        }
      }
    }
    return result;
  }

  private static List<ZoneOffsetTransition> transitions(ZoneId zone) {
    List<ZoneOffsetTransition> result = new ArrayList<>();
    ZoneRules rules = zone.getRules();
    for (ZoneOffsetTransition t = rules.nextTransition(START); t != null && t.getInstant().isBefore(END); t = rules.nextTransition(t.getInstant())) {
      result.add(t);
    }
    return result;
  }

  /** Spring wants 6 fields (second first); it knows the same macros. */
  private static String springForm(String expression) {
    if (expression.startsWith("@")) {
      return expression;
    }
    return expression.trim().split("\\s+").length == 5 ? "0 " + expression : expression;
  }

  /**
   * Valid expressions the two implementations read the same way: both day fields never restricted
   * together; in day-of-week no {@code *}/n or a/n (delayq steps those over Sunday to Saturday as Vixie
   * cron does, Spring over Monday to Sunday) and no range that starts at 7 (Spring reads 7-7 as 0-7). About
   * one in four has a seconds field.
   */
  static List<String> randomExpressions(Random random, int count) {
    Map<String, Boolean> result = new LinkedHashMap<>();
    while (result.size() < count) {
      StringBuilder text = new StringBuilder();
      if (random.nextInt(4) == 0) {
        text.append(field(random, CronField.SECOND)).append(' ');
      }
      text.append(field(random, CronField.MINUTE)).append(' ');
      text.append(field(random, CronField.HOUR)).append(' ');
      int days = random.nextInt(3);
      text.append(days == 0 ? field(random, CronField.DAY_OF_MONTH) : random.nextBoolean() ? "*" : "?").append(' ');
      text.append(field(random, CronField.MONTH)).append(' ');
      text.append(days == 1 ? field(random, CronField.DAY_OF_WEEK) : days == 0 ? "*" : random.nextBoolean() ? "*" : "?");
      try {
        Cron.parse(text.toString());
        result.put(text.toString(), true);
      } catch (InvalidRequestException neverFires) {
        // e.g. day 30 in February only: generate another
        assertThat(neverFires.getMessage()).contains("never occurs");
      }
    }
    return new ArrayList<>(result.keySet());
  }

  private static String field(Random random, CronField field) {
    int kind = random.nextInt(7);
    if (field == CronField.DAY_OF_WEEK && (kind == 4 || kind == 5)) {
      kind = 2; // no */n or a/n: see the method above
    }
    switch (kind) {
      case 0:
        return "*";
      case 1:
        return value(random, field, random.nextInt(field.max - field.min + 1) + field.min, false);
      case 2:
        return range(random, field);
      case 3:
        return range(random, field) + "/" + (1 + random.nextInt(4));
      case 4:
        return "*/" + (1 + random.nextInt(Math.min(15, field.max - field.min + 1)));
      case 5:
        return value(random, field, random.nextInt(field.max - field.min + 1) + field.min, false) + "/" + (1 + random.nextInt(10));
      default:
        int items = 2 + random.nextInt(2);
        StringBuilder list = new StringBuilder();
        for (int i = 0; i < items; i++) {
          list.append(i == 0 ? "" : ",")
              .append(random.nextBoolean() ? range(random, field) : value(random, field, random.nextInt(field.max - field.min + 1) + field.min, false));
        }
        return list.toString();
    }
  }

  private static String range(Random random, CronField field) {
    // why: Spring reads a day-of-week range starting at 7 as starting at 0 (7-7 is every day there)
    int lowMax = field == CronField.DAY_OF_WEEK ? 6 : field.max;
    int low = field.min + random.nextInt(lowMax - field.min + 1);
    int high = low + random.nextInt(field.max - low + 1);
    return value(random, field, low, false) + "-" + value(random, field, high, true);
  }

  private static String value(Random random, CronField field, int value, boolean rangeEnd) {
    if (field.names.isEmpty() || random.nextInt(3) > 0) {
      return Integer.toString(value);
    }
    if (field == CronField.DAY_OF_WEEK) {
      // why: Spring reads SUN as 7, delayq as 0 at the start of a range: write Sunday as a number there
      if (value == 0 || (value == 7 && !rangeEnd)) {
        return Integer.toString(value);
      }
      String name = field.names.get(value % 7);
      return random.nextBoolean() ? name : name.toLowerCase(java.util.Locale.ROOT);
    }
    return field.names.get(value - field.min);
  }
}
