package io.delayq.checker;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import io.delayq.embedded.RedisClusterProcesses;
import io.delayq.testing.TestRedis;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A randomized, model-checked test of the promises of DESIGN.md, in the spirit of Jepsen's checkers:
 * three clients of one Redis work one queue of four partitions at once — schedules with colliding
 * ids, random delays and both duplicate policies, reschedules, cancels, pull claims on short
 * leases, acks, nacks, extensions and releases with current and stale tokens, leases left to
 * run out, worker pools whose handlers throw or sleep past their leases opened and closed, whole
 * clients closed and reopened — while every call is recorded with its local start and end and its
 * outcome, and every delivery with the Redis time of its claim. Then a drain worker consumes what
 * is left, the end state of every id is read back (through {@code get} and from the keys), and
 * {@link Checker} judges the history. The same run goes against a real three-master Redis Cluster,
 * and a negative control shows that the checker catches faults injected into a real history.
 *
 * <p>{@code -Ddelayq.checker.seconds=600} soaks for longer (default 20 s per run);
 * {@code -Ddelayq.checker.seed=N} replays a seed's mix of operations (the interleaving is the
 * machine's). Each run writes its whole history under {@code target/promises-checker/}.
 */
class PromisesCheckerIT {
  private static final long SECONDS = Long.getLong("delayq.checker.seconds", 20);
  private static final long SEED = Long.getLong("delayq.checker.seed", 20_240_611L);
  private static final int CLIENTS = 3;
  private static final int THREADS = 6;
  private static final int IDS = 16;
  private static final int PARTITIONS = 4;

  private static RedisClusterProcesses cluster;

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void promisesHoldOnOneRedis() {
    Checker.Report report = runAndCheck("standalone", TestRedis.url(), false, Duration.ofSeconds(SECONDS), SEED);
    assertNoViolations(report);
  }

  @Test
  void promisesHoldOnARedisClusterOfThreeMasters() {
    cluster = RedisClusterProcesses.builder().masters(3).replicasPerMaster(0).start();
    Checker.Report report = runAndCheck("cluster", cluster.seedUrl(), true, Duration.ofSeconds(SECONDS), SEED + 1);
    assertNoViolations(report);
  }

  /**
   * The checker must not pass everything: faults injected into a real recorded history (a second
   * holder inside a live lease, a stale ack recorded as accepted, a delivery before its due time, an
   * acknowledged schedule whose deliveries vanished) are each reported, by the check meant for it,
   * and every violation that was not in the history before names a record the fault made.
   */
  @Test
  void negativeControlDetectsInjectedFaults() {
    long seconds = Math.min(SECONDS, 6);
    History real = record("negative-control", TestRedis.url(), false, Duration.ofSeconds(seconds), SEED + 2);
    Checker.Report clean = Checker.check(real);
    System.out.println(clean.summaryLine() + "  [negative control, the real history]");
    Set<String> before = signatures(clean.violations());

    List<String> failures = new ArrayList<>();
    History all = real.copy();
    Set<Integer> allInjected = new HashSet<>();
    Set<Violation.Kind> allExpected = new HashSet<>();
    for (Faults.Fault fault : Faults.all()) {
      History mutated = real.copy();
      Optional<Set<Integer>> injected = fault.inject().apply(mutated);
      assertThat(injected).as("the recorded history offers a place for: %s", fault.name()).isPresent();
      Optional<Set<Integer>> again = fault.inject().apply(all);
      again.ifPresent(allInjected::addAll);
      allExpected.add(fault.expected());
      List<Violation> fresh = fresh(Checker.check(mutated).violations(), before);
      System.out.println("NEGATIVE CONTROL " + fault.expected() + " <- " + fault.name() + ": " + fresh.size()
          + " new violation(s) " + kinds(fresh));
      fresh.forEach(v -> System.out.println("    " + v.toString().replace("\n", "\n    ")));
      judge(fault.name(), fault.expected(), injected.get(), fresh, failures);
    }
    List<Violation> freshAll = fresh(Checker.check(all).violations(), before);
    System.out.println("NEGATIVE CONTROL all faults at once: " + freshAll.size() + " new violation(s) " + kinds(freshAll));
    for (Violation.Kind kind : allExpected) {
      if (freshAll.stream().noneMatch(v -> v.kind() == kind)) {
        failures.add("with all faults injected at once, no " + kind + " was reported");
      }
    }
    for (Violation v : freshAll) {
      if (v.refs().stream().noneMatch(allInjected::contains)) {
        failures.add("with all faults at once, a violation that names no injected record: " + v);
      }
    }
    assertThat(failures).as("negative control").isEmpty();
  }

  private static void judge(String name, Violation.Kind expected, Set<Integer> injected, List<Violation> fresh,
      List<String> failures) {
    if (fresh.stream().noneMatch(v -> v.kind() == expected && v.refs().stream().anyMatch(injected::contains))) {
      failures.add("'" + name + "' was not reported as " + expected + "; new violations: " + kinds(fresh));
    }
    for (Violation v : fresh) {
      if (v.refs().stream().noneMatch(injected::contains)) {
        failures.add("'" + name + "' brought a violation that names no injected record " + injected + ": " + v);
      }
    }
  }

  private static List<Violation> fresh(List<Violation> after, Set<String> before) {
    return after.stream().filter(v -> !before.contains(signature(v))).toList();
  }

  private static Set<String> signatures(List<Violation> violations) {
    Set<String> s = new HashSet<>();
    violations.forEach(v -> s.add(signature(v)));
    return s;
  }

  private static String signature(Violation v) {
    return v.kind() + "|" + v.id() + "|" + v.refs() + "|" + v.message();
  }

  private static String kinds(List<Violation> violations) {
    return violations.stream().map(v -> v.kind().name()).sorted().distinct().toList().toString();
  }

  // ---- running ----

  private static Checker.Report runAndCheck(String label, String url, boolean isCluster, Duration duration, long seed) {
    History history = record(label, url, isCluster, duration, seed);
    long started = System.nanoTime();
    Checker.Report report = Checker.check(history);
    long checkMillis = (System.nanoTime() - started) / 1_000_000;
    System.out.println(report.details() + "\n  checked in " + checkMillis + " ms");
    if (!history.unexpected.isEmpty()) {
      System.out.println("  calls that failed in ways the API does not name (recorded as UNKNOWN): "
          + history.unexpected.size() + ", first: " + history.unexpected.subList(0, Math.min(5, history.unexpected.size())));
    }
    System.out.println(report.summaryLine());
    return report;
  }

  private static History record(String label, String url, boolean isCluster, Duration duration, long seed) {
    String queue = TestRedis.uniqueQueue("checker-" + label);
    System.out.println("PROMISES CHECKER run=" + label + " seed=" + seed + " seconds=" + duration.toSeconds() + " queue="
        + queue + " redis=" + url + " (replay the mix with -Ddelayq.checker.seed=" + seed + ")");
    Workload workload = new Workload(new Workload.Config(
        label, url, isCluster, duration, seed, CLIENTS, THREADS, IDS, PARTITIONS, queue, 1));
    long started = System.nanoTime();
    History history = quietly(workload::run);
    System.out.println("  recorded in " + (System.nanoTime() - started) / 1_000_000 + " ms, " + workload.restarts()
        + " client restarts; history: " + dump(history, seed));
    return history;
  }

  /** delayq logs every refused ack and lost lease at WARN; this run makes thousands on purpose. */
  private static <T> T quietly(Supplier<T> body) {
    ch.qos.logback.classic.Logger logger = (ch.qos.logback.classic.Logger) LoggerFactory.getLogger("io.delayq");
    Level level = logger.getLevel();
    logger.setLevel(Level.ERROR);
    try {
      return body.get();
    } finally {
      logger.setLevel(level);
    }
  }

  private static Path dump(History history, long seed) {
    Path dir = Path.of("target", "promises-checker");
    Path file = dir.resolve(history.label + "-" + seed + ".history.txt");
    record Line(long at, String text) {}
    List<Line> lines = new ArrayList<>();
    history.ops().forEach(o -> lines.add(new Line(o.start, o.toString())));
    history.deliveries().forEach(d -> lines.add(new Line(d.claimEnd, d.toString())));
    history.pools().forEach(p -> lines.add(new Line(p.closeStart, p.toString())));
    history.finals().values().forEach(f -> lines.add(new Line(Long.MAX_VALUE, f.toString())));
    lines.sort(Comparator.comparingLong(Line::at));
    try {
      Files.createDirectories(dir);
      Files.write(file, lines.stream().map(Line::text).toList());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return file.toAbsolutePath();
  }

  private static void assertNoViolations(Checker.Report report) {
    assertThat(report.deliveries()).as("deliveries recorded").isPositive();
    assertThat(report.violations())
        .as("promise violations in run %s (seed %d):%s", report.label(), report.seed(), report.violationList(50))
        .isEmpty();
  }
}
