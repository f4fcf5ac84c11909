package io.delayq.bench;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/** The benchmark's scenarios, in the order a run goes through them, by the names {@code --only} takes. */
enum Scenario {
  CEILING, ENQUEUE, DRAIN, STEADY, IDLE, MEMORY, IDEMPOTENCY, BACKLOG, PARTITIONS, CLUSTER, DURABLE, HTTP, RABBITMQ;

  /** The scenarios with a row per contender, which share the contenders' warm-up. */
  static final Set<Scenario> CONTENDER_TABLES = EnumSet.of(ENQUEUE, DRAIN, STEADY, IDLE, MEMORY, BACKLOG, PARTITIONS);

  /** The name on the command line and in the report, e.g. {@code http}. */
  String flagName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * The scenarios a comma-separated list names, e.g. {@code http} or {@code drain,steady}.
   *
   * @throws BenchMain.UsageException for an empty list or a name that is not a scenario
   */
  static Set<Scenario> parseList(String list) {
    Set<Scenario> scenarios = EnumSet.noneOf(Scenario.class);
    for (String name : list.split(",", -1)) {
      String wanted = name.trim().toLowerCase(Locale.ROOT);
      Scenario found = Arrays.stream(values()).filter(s -> s.flagName().equals(wanted)).findFirst()
          .orElseThrow(() -> new BenchMain.UsageException("--only: '" + name.trim() + "' is not a scenario; name one"
              + " or more of " + names(EnumSet.allOf(Scenario.class)) + ", comma-separated"));
      scenarios.add(found);
    }
    return scenarios;
  }

  /** {@code a,b,c}: the flag names, in run order. */
  static String names(Set<Scenario> scenarios) {
    return scenarios.stream().map(Scenario::flagName).collect(Collectors.joining(","));
  }
}
