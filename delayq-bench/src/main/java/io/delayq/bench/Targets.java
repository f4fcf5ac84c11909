package io.delayq.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.ToDoubleFunction;

/**
 * delayq's own targets, each checked against this run's figures. A target whose figures
 * are missing (a contender failed or was not run) is not met, and says so.
 */
final class Targets {
  private static final String DELAYQ = DelayqContender.NAME;
  private static final String REDISSON = RedissonContender.NAME;
  private static final String LOOP = SortedSetLoopContender.BATCHED_NAME;

  private Targets() {}

  /**
   * One target.
   *
   * @param goal what delayq must reach
   * @param measured the figures it is judged on
   * @param met whether it was reached
   */
  record Target(String goal, String measured, boolean met) {}

  static List<Target> evaluate(Results r, BenchSettings settings) {
    List<Target> targets = new ArrayList<>();
    targets.add(ratio("enqueue, synchronous: ≥ 2× Redisson", r.enqueue, Results.EnqueueResult::contender,
        Results.EnqueueResult::syncPerSecond, REDISSON, 2));
    targets.add(ratio("enqueue, bulk: ≥ 5× Redisson", r.enqueue, Results.EnqueueResult::contender,
        Results.EnqueueResult::bulkPerSecond, REDISSON, 5));
    targets.add(ratio("enqueue, bulk: ≥ 50% of the batched loop", r.enqueue, Results.EnqueueResult::contender,
        Results.EnqueueResult::bulkPerSecond, LOOP, 0.5));
    targets.add(ratio("drain (leases and acks): ≥ 10× Redisson", r.drain, Results.DrainResult::contender,
        Results.DrainResult::perSecond, REDISSON, 10));
    targets.add(ratio("drain (leases and acks): ≥ 50% of the batched loop", r.drain,
        Results.DrainResult::contender, Results.DrainResult::perSecond, LOOP, 0.5));

    Optional<Results.SteadyResult> steady = Results.find(r.steady, x -> x.contender().equals(DELAYQ))
        .filter(x -> x.lateness() != null);
    targets.add(steady
        .map(x -> new Target("steady: lateness p99 ≤ 5 ms", "p99 " + Fmt.ms(x.lateness().p99Micros()) + " ms",
            x.lateness().p99Micros() <= 5_000))
        .orElse(missing("steady: lateness p99 ≤ 5 ms")));
    targets.add(steady
        .map(x -> new Target("steady: lateness max ≤ 20 ms", "max " + Fmt.ms(x.lateness().maxMicros()) + " ms",
            x.lateness().maxMicros() <= 20_000))
        .orElse(missing("steady: lateness max ≤ 20 ms")));
    targets.add(steady
        .map(x -> new Target("steady: 0 early", x.lateness().early() + " early of " + Fmt.count(x.lateness().count()),
            x.lateness().early() == 0))
        .orElse(missing("steady: 0 early")));
    targets.add(steady
        .map(x -> new Target("steady: ≤ 3 Redis commands per job (total_commands_processed)",
            Fmt.decimal(x.commandsPerJob(), 2) + " per job (commandstats calls, script-internal ones included: "
                + Fmt.decimal((double) x.redis().commandstatsCalls() / x.jobs(), 2) + ")",
            x.commandsPerJob() <= 3))
        .orElse(missing("steady: ≤ 3 Redis commands per job (total_commands_processed)")));

    String idleGoal = "idle: ≤ 10 Redis commands/s per worker process";
    targets.add(Results.find(r.idle, x -> x.contender().equals(DELAYQ))
        .filter(x -> Double.isFinite(x.commandsPerSecond()))
        .map(x -> new Target(idleGoal, Fmt.decimal(x.commandsPerSecond(), 1) + " commands/s",
            x.commandsPerSecond() <= 10))
        .orElse(missing(idleGoal)));

    Optional<Results.MemoryResult> memory = Results.find(r.memory, x -> x.contender().equals(DELAYQ))
        .filter(x -> Double.isFinite(x.bytesPerJob()));
    Optional<Results.MemoryResult> redissonMemory = Results.find(r.memory, x -> x.contender().equals(REDISSON))
        .filter(x -> Double.isFinite(x.bytesPerJob()));
    String memoryGoal = "memory per pending job: below Redisson's";
    targets.add(memory.isPresent() && redissonMemory.isPresent()
        ? new Target(memoryGoal, Fmt.decimal(memory.get().bytesPerJob(), 0) + " bytes vs Redisson's "
            + Fmt.decimal(redissonMemory.get().bytesPerJob(), 0),
            memory.get().bytesPerJob() < redissonMemory.get().bytesPerJob())
        : missing(memoryGoal));
    String stretchGoal = "memory per pending job (stretch): ≤ 250 bytes";
    targets.add(memory
        .map(x -> new Target(stretchGoal, Fmt.decimal(x.bytesPerJob(), 0) + " bytes", x.bytesPerJob() <= 250))
        .orElse(missing(stretchGoal)));

    targets.add(backlog(r, settings));
    targets.add(integrity(r));
    return targets;
  }

  /** delayq's figure against {@code other}'s, which it must reach {@code factor} times. */
  private static <T> Target ratio(String goal, List<T> results, java.util.function.Function<T, String> contender,
      ToDoubleFunction<T> figure, String other, double factor) {
    Optional<Double> mine = value(results, contender, figure, DELAYQ);
    Optional<Double> theirs = value(results, contender, figure, other);
    if (mine.isEmpty() || theirs.isEmpty()) {
      return missing(goal);
    }
    double ratio = mine.get() / theirs.get();
    String shown = factor < 1 ? Fmt.percent(ratio) : Fmt.ratio(ratio);
    return new Target(goal, String.format(Locale.ROOT, "%s jobs/s vs %s jobs/s = %s",
        Fmt.rate(mine.get()), Fmt.rate(theirs.get()), shown), ratio >= factor);
  }

  private static <T> Optional<Double> value(List<T> results, java.util.function.Function<T, String> contender,
      ToDoubleFunction<T> figure, String name) {
    return Results.find(results, x -> contender.apply(x).equals(name))
        .map(figure::applyAsDouble)
        .filter(v -> Double.isFinite(v) && v > 0);
  }

  private static Target backlog(Results r, BenchSettings settings) {
    int smallest = settings.backlogSizes().get(0);
    int largest = settings.backlogSizes().get(settings.backlogSizes().size() - 1);
    String goal = "backlog of " + Fmt.size(largest) + ": claim throughput within 20% of the " + Fmt.size(smallest)
        + " figure" + (settings.quick() ? " (quick mode; the full run uses 10 M)" : "");
    Optional<Double> small = backlogRate(r, smallest);
    Optional<Double> large = backlogRate(r, largest);
    if (small.isEmpty() || large.isEmpty()) {
      return missing(goal);
    }
    double ratio = large.get() / small.get();
    return new Target(goal, String.format(Locale.ROOT, "%s jobs/s vs %s jobs/s = %s", Fmt.rate(large.get()),
        Fmt.rate(small.get()), Fmt.percent(ratio)), ratio >= 0.8);
  }

  private static Optional<Double> backlogRate(Results r, int backlog) {
    return Results.find(r.backlog, x -> x.contender().equals(DELAYQ) && x.backlog() == backlog)
        .map(Results.DrainResult::perSecond)
        .filter(v -> Double.isFinite(v) && v > 0);
  }

  /** 0 lost and 0 duplicates in every delayq run, and no delayq run missing. */
  private static Target integrity(Results r) {
    List<Integrity> all = new ArrayList<>();
    int missing = 0;
    for (Results.EnqueueResult x : r.enqueue) {
      if (x.contender().equals(DELAYQ)) {
        missing += add(all, x.integrity());
      }
    }
    for (List<Results.DrainResult> list : List.of(r.drain, r.backlog, r.partitions)) {
      for (Results.DrainResult x : list) {
        if (x.contender().equals(DELAYQ)) {
          missing += add(all, x.integrity());
        }
      }
    }
    for (Results.ClusterResult x : r.cluster) {
      missing += add(all, x.integrity());
    }
    for (Results.SteadyResult x : r.steady) {
      if (x.contender().equals(DELAYQ)) {
        missing += add(all, x.integrity());
      }
    }
    for (Results.IdleResult x : r.idle) {
      if (x.contender().equals(DELAYQ)) {
        missing += add(all, x.integrity());
      }
    }
    for (Results.MemoryResult x : r.memory) {
      if (x.contender().equals(DELAYQ)) {
        missing += add(all, x.integrity());
      }
    }
    if (r.idempotency != null) {
      missing += add(all, r.idempotency.on() == null ? null : r.idempotency.on().integrity());
      missing += add(all, r.idempotency.off() == null ? null : r.idempotency.off().integrity());
    }
    Integrity sum = all.stream().reduce(Integrity.NONE, Integrity::plus);
    String measured = String.format(Locale.ROOT, "%d lost, %d duplicates, %d unexpected over %d runs (%s jobs)%s",
        sum.lost(), sum.duplicates(), sum.unexpected(), all.size(), Fmt.count(sum.expected()),
        missing > 0 ? "; " + missing + " run(s) without figures" : "");
    return new Target("0 lost, 0 duplicates in every scenario", measured, sum.clean() && missing == 0 && !all.isEmpty());
  }

  private static int add(List<Integrity> all, Integrity integrity) {
    if (integrity == null) {
      return 1;
    }
    all.add(integrity);
    return 0;
  }

  private static Target missing(String goal) {
    return new Target(goal, "not measured (see the scenario tables)", false);
  }
}
