package io.delayq.bench;

import io.delayq.Delayq;
import io.delayq.embedded.RedisClusterProcesses;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;

/**
 * Writes {@code BENCHMARKS.md}: the run's header, the targets with met / not met, the ratios, one
 * table per scenario with a row per contender (the ceiling included, marked n/a where it does not
 * apply), the plots, and the hand-written "where the time goes" analysis (a resource) above the
 * run's profile table.
 */
final class Report {
  static final String FILE_NAME = "BENCHMARKS.md";

  /** Section headings of the scenario tables, in order. */
  static final String ENQUEUE = "## Enqueue";
  static final String DRAIN = "## Drain";
  static final String STEADY = "## Steady";
  static final String IDLE = "## Idle";
  static final String MEMORY = "## Memory";
  static final String BACKLOG = "## Backlog growth";
  static final String PARTITIONS = "## Partitions";
  static final List<String> SCENARIO_SECTIONS = List.of(ENQUEUE, DRAIN, STEADY, IDLE, MEMORY, BACKLOG, PARTITIONS);
  static final String IDEMPOTENCY = "## Idempotency window";
  /** The label of the window's headline figure, in its section and in the progress log. */
  static final String BYTES_PER_FINISHED_ID = "idempotency window: bytes per finished id";
  static final String WHERE_THE_TIME_GOES = "## Where the time goes";
  static final String DURABLE = "## Durable schedules (WAIT for a replica)";
  static final String HTTP = "## HTTP API (delayq-server)";
  static final String RABBITMQ = "## RabbitMQ forwarding (publisher confirms)";
  /** Most ids one of a partition's two idempotency sets holds (see {@code Delayq.Builder#idempotencyWindow}). */
  private static final long IDS_PER_SET_CAP = 1_000_000;
  /** Ratios of the cluster to the single node within this band read as "about the same". */
  private static final double SAME_BAND = 0.10;

  private static final String NA = "n/a";
  private static final DateTimeFormatter DATE =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'", Locale.ROOT).withZone(ZoneOffset.UTC);

  private final Results r;
  private final RunInfo info;
  private final BenchSettings s;
  private final List<String> contenders;
  private final StringBuilder md = new StringBuilder();

  private Report(Results results, RunInfo info, List<String> contenders) {
    this.r = results;
    this.info = info;
    this.s = info.settings();
    this.contenders = contenders;
  }

  /** Writes the report into {@code dir}; {@code plots} are paths relative to {@code dir}. */
  static Path write(Path dir, Results results, RunInfo info, List<String> contenders, List<Path> plots)
      throws IOException {
    Report report = new Report(results, info, contenders);
    Path file = dir.resolve(FILE_NAME);
    Files.writeString(file, report.render(plots), StandardCharsets.UTF_8);
    return file;
  }

  private String render(List<Path> plots) {
    header();
    if (info.complete()) {
      targets();
      ratios();
    }
    section(Scenario.ENQUEUE, this::enqueue);
    section(Scenario.DRAIN, this::drain);
    section(Scenario.STEADY, this::steady);
    section(Scenario.IDLE, this::idle);
    section(Scenario.MEMORY, this::memory);
    section(Scenario.IDEMPOTENCY, this::idempotency);
    section(Scenario.BACKLOG, this::backlog);
    section(Scenario.PARTITIONS, this::partitions);
    section(Scenario.CLUSTER, this::cluster);
    section(Scenario.DURABLE, this::durable);
    section(Scenario.HTTP, this::http);
    section(Scenario.RABBITMQ, this::rabbitmq);
    if (info.complete()) {
      plots(plots);
      whereTheTimeGoes();
    }
    method();
    return md.toString();
  }

  /** A scenario's section, when the scenario ran (a partial run, {@code --only}, shows only its own). */
  private void section(Scenario scenario, Runnable write) {
    if (info.scenarios().contains(scenario)) {
      write.run();
    }
  }

  // ---- sections ----

  private void header() {
    line("# delayq benchmarks");
    line();
    line("<!-- Written by delayq-bench (io.delayq.bench.BenchMain). Tables and targets are computed by the run;");
    line("     rerun the command rather than editing them. -->");
    line();
    line("delayq against Redisson's `RDelayedQueue`, the plain sorted-set loop (one job per call, and batched),");
    line("and the ceiling `redis-benchmark` reaches with bare `ZADD`s, all in one run on one Redis; then delayq alone");
    line("on that Redis and on a Redis Cluster, which the run starts too; then delayq's enqueue on a primary with one");
    line("replica, with and without waiting for it; last, delayq-server's HTTP API, the server run as its own");
    line("process.");
    line("One command, from the repository root, builds everything and runs it all:");
    line();
    line("    " + RunInfo.COMMAND);
    line();
    line("Add `--quick` for the smoke run CI uses (smaller counts, under two minutes, written to a temp dir),");
    line("`--out=DIR` to write `BENCHMARKS.md` and `docs/bench/*.png` somewhere other than the current directory,");
    line("and `--only=NAME[,NAME...]` to run only some scenarios (" + Scenario.names(EnumSet.allOf(Scenario.class))
        + "; a report of just their sections, without targets or plots, written to a temp dir).");
    line();
    line("## This run");
    line();
    Machine m = info.machine();
    row("", "");
    line("|---|---|");
    row("date", DATE.format(info.date()));
    row("mode", s.quick() ? "quick (`--quick`: smaller counts; not the figures to quote)" : "full");
    row("scenarios", info.complete() ? "all"
        : "only " + Scenario.names(info.scenarios()) + " (`--only=" + Scenario.names(info.scenarios())
            + "`): a partial run, without targets, ratios or plots");
    row("wall time", minutes(info.wallSeconds()));
    row("machine", m.cores() + " cores (nproc), " + m.cpuModel() + ", " + m.ram() + " RAM, " + m.os());
    row("Java", m.java());
    row("Redis", info.redisVersion() + ": " + info.redisChoice() + " (`" + info.redisBinary()
        + "`), `save \"\"`, no AOF, `maxmemory-policy noeviction`, on 127.0.0.1; FLUSHALL between runs");
    row("delayq", RunInfo.delayqVersion() + ", public API only: `schedule`, `scheduleAll` in chunks of "
        + Fmt.count(s.bulkChunk()) + ", `startWorkers` with concurrency " + s.workerThreads()
        + ", other options default (so the idempotency window is on: "
        + minutesOf(Delayq.Builder.DEFAULT_IDEMPOTENCY_WINDOW) + "; jobs are scheduled with the default"
        + " `DuplicatePolicy.REPLACE`, whose ids the window does not keep); 1 partition unless said");
    row("Redisson", RunInfo.redissonVersion() + ", `RDelayedQueue` over `RBlockingQueue`, single server, codec "
        + RedissonContender.defaultCodec() + " (its default), every other setting default; " + s.workerThreads()
        + " consumer threads in `take()`. Redisson 3.x marks `RDelayedQueue` deprecated in favour of"
        + " `RReliableQueue`; it is still the one most Java teams run");
    row("sorted-set loop", "Lettuce " + RunInfo.lettuceVersion() + "; " + s.workerThreads()
        + " consumer threads, each with its own connection, running the claim script by EVALSHA; 100 ms sleep when"
        + " nothing is due; batched variant: up to " + SortedSetLoopContender.BATCH + " per call");
    row("Redis Cluster", "for the Redis Cluster section only: " + BenchCluster.MASTERS + " masters with "
        + BenchCluster.REPLICAS_PER_MASTER + " replica each, " + clusterNodes() + " `redis-server` processes from the"
        + " same binary with the same settings, on 127.0.0.1, `cluster-node-timeout` "
        + RedisClusterProcesses.DEFAULT_NODE_TIMEOUT.toMillis() + " ms; FLUSHALL on every master, and WAIT for its"
        + " replica, between runs");
    row("primary and replica", "for the durable schedules section only: a primary and " + BenchReplicaPair.REPLICAS
        + " replica (`replicaof`), 2 `redis-server` processes from the same binary with the same settings, on"
        + " 127.0.0.1; FLUSHALL on the primary, and WAIT for the replica, between runs");
    row("delayq-server", "for the HTTP API section only: `delayq-server.jar` of this checkout, run as its own JVM"
        + " (`serve --port 0 --redis <this Redis>`, every other setting default), on 127.0.0.1");
    row("ceiling", r.ceiling == null ? NA : r.ceiling.available()
        ? "`" + r.ceiling.tool() + " -t zadd -c " + Ceiling.CLIENTS + " -r 1000000` (and `-P " + Ceiling.PIPELINE + "`)"
        : r.ceiling.unavailable());
    line();
  }

  private void targets() {
    List<Targets.Target> targets = Targets.evaluate(r, s);
    line("## Targets");
    line();
    line("delayq's targets, checked against this run's figures.");
    line();
    row("target", "measured", "result");
    line("|---|---|---|");
    for (Targets.Target t : targets) {
      row(t.goal(), t.measured(), t.met() ? "**met**" : "**not met**");
    }
    long met = targets.stream().filter(Targets.Target::met).count();
    line();
    line(met + " of " + targets.size() + " targets met.");
    line();
  }

  private void ratios() {
    String redisson = RedissonContender.NAME;
    String loop = SortedSetLoopContender.BATCHED_NAME;
    line("## delayq against the others");
    line();
    line("Ratios are delayq's figure over the other's: above 1 is better for throughputs, below 1 for lateness,");
    line("memory and idle commands. The ceiling is bare `ZADD` (50 clients; pipelined `-P 64` for bulk).");
    line();
    row("figure", "delayq", "Redisson", "delayq/Redisson", "batched loop", "delayq/batched loop", "ceiling",
        "delayq/ceiling");
    line("|---|---:|---:|---:|---:|---:|---:|---:|");
    ratioRow("enqueue, synchronous (jobs/s)", v(r.enqueue, Results.EnqueueResult::contender,
        Results.EnqueueResult::syncPerSecond), Fmt::rate, redisson, loop,
        r.ceiling == null ? Double.NaN : r.ceiling.zaddPerSecond());
    ratioRow("enqueue, bulk (jobs/s)", v(r.enqueue, Results.EnqueueResult::contender,
        Results.EnqueueResult::bulkPerSecond), Fmt::rate, redisson, loop,
        r.ceiling == null ? Double.NaN : r.ceiling.pipelinedZaddPerSecond());
    ratioRow("drain (jobs/s)", v(r.drain, Results.DrainResult::contender, Results.DrainResult::perSecond),
        Fmt::rate, redisson, loop, Double.NaN);
    ratioRow("steady lateness p99 (ms)", v(r.steady, Results.SteadyResult::contender,
        x -> x.lateness() == null ? Double.NaN : x.lateness().p99Micros()), Fmt::ms, redisson, loop, Double.NaN);
    ratioRow("steady Redis commands per job", v(r.steady, Results.SteadyResult::contender,
        Results.SteadyResult::commandsPerJob), x -> Fmt.decimal(x, 2), redisson, loop, Double.NaN);
    ratioRow("idle Redis commands/s", v(r.idle, Results.IdleResult::contender,
        Results.IdleResult::commandsPerSecond), x -> Fmt.decimal(x, 1), redisson, loop, Double.NaN);
    ratioRow("memory per pending job (bytes)", v(r.memory, Results.MemoryResult::contender,
        Results.MemoryResult::bytesPerJob), x -> Fmt.decimal(x, 0), redisson, loop, Double.NaN);
    line();
  }

  private void ratioRow(String figure, Function<String, Double> value, Function<Double, String> format,
      String redisson, String loop, double ceiling) {
    double mine = value.apply(DelayqContender.NAME);
    double theirs = value.apply(redisson);
    double loopValue = value.apply(loop);
    row(figure, format.apply(mine), format.apply(theirs), Fmt.ratio(mine / theirs), format.apply(loopValue),
        Fmt.ratio(mine / loopValue), Double.isNaN(ceiling) ? NA : format.apply(ceiling),
        Double.isNaN(ceiling) ? NA : Fmt.ratio(mine / ceiling));
  }

  private void enqueue() {
    line(ENQUEUE);
    line();
    line(Fmt.count(s.enqueueJobs()) + " jobs from one producer thread, due in a day (nothing is consumed): first one"
        + " plain synchronous call per job, then the bulk call in chunks of " + Fmt.count(s.bulkChunk())
        + " (delayq `scheduleAll`, Redisson `offerAsync` then await all, the loop pipelined `ZADD`s). Lost and"
        + " duplicates compare what Redis holds afterwards with what was sent, over both runs.");
    line();
    row("contender", "sync jobs/s", "bulk jobs/s", "lost", "duplicates", "note");
    line("|---|---:|---:|---:|---:|---|");
    for (String c : contenders) {
      Optional<Results.EnqueueResult> x = Results.find(r.enqueue, e -> e.contender().equals(c));
      row(c, x.map(e -> Fmt.rate(e.syncPerSecond())).orElse(Fmt.NONE),
          x.map(e -> Fmt.rate(e.bulkPerSecond())).orElse(Fmt.NONE),
          lost(x.map(Results.EnqueueResult::integrity)), duplicates(x.map(Results.EnqueueResult::integrity)),
          x.map(Results.EnqueueResult::note).orElse("not run"));
    }
    if (r.ceiling != null && r.ceiling.available()) {
      row(Ceiling.NAME, Fmt.rate(r.ceiling.zaddPerSecond()) + " (" + Ceiling.CLIENTS + " clients)",
          Fmt.rate(r.ceiling.pipelinedZaddPerSecond()) + " (-P " + Ceiling.PIPELINE + ")", NA, NA,
          "bare ZADD, not a queue");
    } else {
      row(Ceiling.NAME, NA, NA, NA, NA, r.ceiling == null ? "not run" : r.ceiling.unavailable());
    }
    line();
  }

  private void drain() {
    line(DRAIN);
    line();
    line(Fmt.count(s.drainJobs()) + " jobs, all due before the " + s.workerThreads() + " consumer threads start; jobs/s"
        + " from worker start to the last job's first delivery (delayq: claim, handler and ack; Redisson: transfer"
        + " to the target queue and `take()`; the loop: claim script, which removes the job).");
    line();
    row("contender", "jobs", "jobs/s", "lost", "duplicates", "note");
    line("|---|---:|---:|---:|---:|---|");
    for (String c : contenders) {
      Optional<Results.DrainResult> x = Results.find(r.drain, e -> e.contender().equals(c));
      row(c, Fmt.count(s.drainJobs()), x.map(e -> Fmt.rate(e.perSecond())).orElse(Fmt.NONE),
          lost(x.map(Results.DrainResult::integrity)), duplicates(x.map(Results.DrainResult::integrity)),
          x.map(e -> noteWithUnexpected(e.note(), e.integrity())).orElse("not run"));
    }
    ceilingNotApplicable(4);
    line();
  }

  private void steady() {
    line(STEADY);
    line();
    line(Fmt.count(s.steadyRatePerSecond()) + " jobs/s for " + s.steadyDuration().toSeconds() + " s from one producer"
        + " thread (plain synchronous call, paced to a fixed schedule), each due " + s.steadyDueIn().toMillis()
        + " ms after it is scheduled, " + s.workerThreads() + " consumer threads running. Lateness = handler start"
        + " (`Clock.systemUTC()`, µs) minus due time; early ones are counted and recorded as 0. Commands per job ="
        + " `total_commands_processed` delta / jobs, from just before the first schedule to the last delivery (the"
        + " target is checked against this); commandstats calls also count the commands scripts run inside."
        + countingNote());
    line();
    row("contender", "jobs", "offered jobs/s", "p50 ms", "p99 ms", "p99.9 ms", "max ms", "early", "commands/job",
        "commandstats calls/job", "lost", "duplicates", "note");
    line("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
    for (String c : contenders) {
      Optional<Results.SteadyResult> x = Results.find(r.steady, e -> e.contender().equals(c));
      Optional<Lateness> l = x.map(Results.SteadyResult::lateness);
      row(c, Fmt.count(s.steadyJobs()), x.map(e -> Fmt.rate(e.achievedRate())).orElse(Fmt.NONE),
          l.map(v -> Fmt.ms(v.p50Micros())).orElse(Fmt.NONE), l.map(v -> Fmt.ms(v.p99Micros())).orElse(Fmt.NONE),
          l.map(v -> Fmt.ms(v.p999Micros())).orElse(Fmt.NONE), l.map(v -> Fmt.ms(v.maxMicros())).orElse(Fmt.NONE),
          l.map(v -> Long.toString(v.early())).orElse(Fmt.NONE),
          x.map(e -> Fmt.decimal(e.commandsPerJob(), 2)).orElse(Fmt.NONE),
          x.filter(e -> e.redis() != null)
              .map(e -> Fmt.decimal((double) e.redis().commandstatsCalls() / e.jobs(), 2)).orElse(Fmt.NONE),
          lost(x.map(Results.SteadyResult::integrity)), duplicates(x.map(Results.SteadyResult::integrity)),
          x.map(e -> noteWithUnexpected(e.note(), e.integrity())).orElse("not run"));
    }
    ceilingNotApplicable(11);
    line();
  }

  /**
   * Says whether this Redis counted script-internal commands in {@code total_commands_processed}
   * too, as Redis 6.2 and 7.0 do: then the two per-job columns agree, and neither is round trips.
   */
  private String countingNote() {
    List<Results.SteadyResult> measured = r.steady.stream().filter(x -> x.redis() != null).toList();
    if (measured.isEmpty()) {
      return "";
    }
    boolean agree = measured.stream()
        .allMatch(x -> Math.abs(x.redis().commands() - x.redis().commandstatsCalls()) <= Math.max(10, x.jobs() / 100));
    return agree
        ? " On this Redis the two agree: `total_commands_processed` counts the commands a script runs as well"
            + " as the script call itself, so neither is client round trips; those are closer to the EVALSHA"
            + " calls per job in the profile under \"Where the time goes\"."
        : "";
  }

  private void idle() {
    line(IDLE);
    line();
    line(s.workerThreads() + " consumer threads on an empty queue for " + s.idleDuration().toSeconds()
        + " s (after 0.5 s to settle). Redis commands/s from the `total_commands_processed` delta. CPU is the"
        + " benchmark JVM's process CPU time (`OperatingSystemMXBean.getProcessCpuTime`) over the same span, as %"
        + " of one core: only that contender runs in it then, so it is the worker process's CPU, JIT and GC"
        + " included.");
    line();
    row("contender", "Redis commands/s", "worker JVM CPU (% of a core)", "lost", "duplicates", "note");
    line("|---|---:|---:|---:|---:|---|");
    for (String c : contenders) {
      Optional<Results.IdleResult> x = Results.find(r.idle, e -> e.contender().equals(c));
      row(c, x.map(e -> Fmt.decimal(e.commandsPerSecond(), 1)).orElse(Fmt.NONE),
          x.map(e -> Fmt.decimal(e.cpuPercentOfCore(), 2)).orElse(Fmt.NONE),
          lost(x.map(Results.IdleResult::integrity)), duplicates(x.map(Results.IdleResult::integrity)),
          x.map(e -> noteWithUnexpected(e.note(), e.integrity())).orElse("not run"));
    }
    ceilingNotApplicable(4);
    line();
  }

  private void memory() {
    line(MEMORY);
    line();
    line(Fmt.count(s.memoryJobs()) + " jobs pending a day away, " + Job.PAYLOAD_BYTES + "-byte payloads, loaded with"
        + " the bulk call; `used_memory` after minus before (taken once the contender had connected), per job.");
    line();
    row("contender", "pending jobs", "bytes per job", "lost", "duplicates", "note");
    line("|---|---:|---:|---:|---:|---|");
    for (String c : contenders) {
      Optional<Results.MemoryResult> x = Results.find(r.memory, e -> e.contender().equals(c));
      row(c, Fmt.count(s.memoryJobs()), x.map(e -> Fmt.decimal(e.bytesPerJob(), 0)).orElse(Fmt.NONE),
          lost(x.map(Results.MemoryResult::integrity)), duplicates(x.map(Results.MemoryResult::integrity)),
          x.map(Results.MemoryResult::note).orElse("not run"));
    }
    ceilingNotApplicable(4);
    line();
  }

  private void idempotency() {
    Results.IdempotencyResult x = r.idempotency;
    Duration window = x == null ? Delayq.Builder.DEFAULT_IDEMPOTENCY_WINDOW : x.window();
    int jobs = x == null ? s.memoryJobs() : x.jobs();
    line(IDEMPOTENCY);
    line();
    line("delayq alone. An acked (or cancelled) job scheduled with `DuplicatePolicy.KEEP` leaves its id behind"
        + " for the idempotency window (default " + minutesOf(window) + "), in two Redis sets per partition that"
        + " take turns, so that a retried `KEEP` schedule of that id does not run the job again (`REPLACE` jobs,"
        + " as in every other table, leave nothing). " + Fmt.count(jobs) + " jobs scheduled with `KEEP`, loaded"
        + " already due with the bulk call, then drained by " + s.workerThreads() + " handler threads (1"
        + " partition), twice, each on an emptied Redis: with the default window, then with"
        + " `idempotencyWindow(Duration.ZERO)`. `used_memory` once every job was acked and the clients had closed,"
        + " minus before the load; the difference between the two runs, per job, is what one finished id costs."
        + " `MEMORY USAGE … SAMPLES 0` weighs the two sets directly. Ids are the benchmark's job numbers, 1 to "
        + Integer.toString(Math.max(0, jobs - 1)).length() + " decimal digits; longer ids cost more.");
    line();
    row("run", "finished ids", "`used_memory` growth (bytes)", "id sets, `MEMORY USAGE` (bytes)", "ids held",
        "drain (jobs/s)", "lost", "duplicates", "note");
    line("|---|---:|---:|---:|---:|---:|---:|---:|---|");
    Optional<Results.DrainResult> on = Optional.ofNullable(x).map(Results.IdempotencyResult::on);
    Optional<Results.DrainResult> off = Optional.ofNullable(x).map(Results.IdempotencyResult::off);
    row("window on (default, " + minutesOf(window) + ")", Fmt.count(jobs),
        x == null ? Fmt.NONE : Fmt.decimal(x.usedMemoryOn(), 0),
        x == null ? Fmt.NONE : Fmt.decimal(x.doneSetBytes(), 0),
        x == null || x.idsHeld() < 0 ? Fmt.NONE : Fmt.count(x.idsHeld()),
        on.map(e -> Fmt.rate(e.perSecond())).orElse(Fmt.NONE), lost(on.map(Results.DrainResult::integrity)),
        duplicates(on.map(Results.DrainResult::integrity)),
        on.map(e -> noteWithUnexpected(e.note(), e.integrity())).orElse(x == null ? "not run" : ""));
    row("window off (`idempotencyWindow(Duration.ZERO)`)", Fmt.count(jobs),
        x == null ? Fmt.NONE : Fmt.decimal(x.usedMemoryOff(), 0), NA, NA,
        off.map(e -> Fmt.rate(e.perSecond())).orElse(Fmt.NONE), lost(off.map(Results.DrainResult::integrity)),
        duplicates(off.map(Results.DrainResult::integrity)),
        off.map(e -> noteWithUnexpected(e.note(), e.integrity())).orElse(x == null ? "not run" : ""));
    line();
    line(idempotencyFinding(x));
    line();
  }

  /** The sentences computed from the idempotency table: the headline figure, its check, what it adds up to. */
  private static String idempotencyFinding(Results.IdempotencyResult x) {
    if (x == null || !Double.isFinite(x.bytesPerFinishedId())) {
      return "**" + BYTES_PER_FINISHED_ID + ": not measured**"
          + (x == null || x.note().isEmpty() ? "." : " (" + x.note() + ").");
    }
    double perId = x.bytesPerFinishedId();
    List<String> out = new ArrayList<>();
    out.add("**" + BYTES_PER_FINISHED_ID + ": " + Fmt.decimal(perId, 1) + "** (`used_memory`, window"
        + " on minus off, over " + Fmt.count(x.jobs()) + " ids); the sets' own `MEMORY USAGE` comes to "
        + Fmt.decimal(x.doneSetBytesPerId(), 1) + " bytes per id (it adds up the structures' sizes, where"
        + " `used_memory` counts what the allocator handed out, so the two may differ by a few bytes).");
    double on = x.on() == null ? Double.NaN : x.on().perSecond();
    double off = x.off() == null ? Double.NaN : x.off().perSecond();
    if (on > 0 && off > 0) {
      out.add("With the window the drain ran at " + Fmt.ratio(on / off) + " its rate without it (one drain"
          + " each, so a rough guide; the drain table's `REPLACE` jobs leave no id to remember).");
    }
    // why: ids are kept at least one window and at most two, so a steady rate holds between one and two windows'
    // worth, each set capped at the documented 1,000,000 ids per partition
    long perWindow = Math.min(IDS_PER_SET_CAP, 1_000L * x.window().toSeconds());
    out.add("At " + minutesOf(x.window()) + ", a partition that finishes 1,000 jobs/s holds " + Fmt.count(perWindow)
        + " to " + Fmt.count(2 * perWindow) + " ids: " + Fmt.decimal(perWindow * perId / 1e6, 0) + " to "
        + Fmt.decimal(2 * perWindow * perId / 1e6, 0) + " MB at this cost per id.");
    if (!x.note().isEmpty()) {
      out.add("Note: " + x.note() + ".");
    }
    return String.join(" ", out);
  }

  /** {@code 5 min}, or {@code 90 s} for a window that is not whole minutes. */
  private static String minutesOf(Duration d) {
    return d.toSeconds() % 60 == 0 ? d.toMinutes() + " min" : d.toSeconds() + " s";
  }

  private void backlog() {
    List<Integer> sizes = s.backlogSizes();
    line(BACKLOG);
    line();
    line("Dispatch throughput (jobs/s, as in the drain) of " + Fmt.count(s.backlogDueJobs()) + " due jobs while "
        + sizes.stream().map(Fmt::size).reduce((a, b) -> a + ", " + b).orElse("") + " jobs are pending a day away."
        + " A flat row means the claim cost does not grow with the queue. Backlogs are loaded with the bulk call"
        + " from " + s.loadThreads() + " threads. Lost and duplicates are over all sizes; a backlog job delivered"
        + " early would be counted as unexpected.");
    line();
    List<String> header = new ArrayList<>(List.of("contender"));
    sizes.forEach(n -> header.add(Fmt.size(n) + " pending"));
    header.addAll(List.of(Fmt.size(sizes.get(sizes.size() - 1)) + " / " + Fmt.size(sizes.get(0)), "lost",
        "duplicates", "note"));
    row(header.toArray(String[]::new));
    line("|---" + "|---:".repeat(sizes.size() + 3) + "|---|");
    for (String c : contenders) {
      List<String> cells = new ArrayList<>(List.of(c));
      List<String> notes = new ArrayList<>();
      Integrity sum = Integrity.NONE;
      boolean any = false;
      for (int size : sizes) {
        Optional<Results.DrainResult> x =
            Results.find(r.backlog, e -> e.contender().equals(c) && e.backlog() == size);
        cells.add(x.map(e -> Fmt.rate(e.perSecond())).orElse(Fmt.NONE));
        if (x.isPresent() && x.get().integrity() != null) {
          sum = sum.plus(x.get().integrity());
          any = true;
        }
        x.ifPresent(e -> notes.add(backlogNote(e)));
      }
      double first = rate(c, sizes.get(0));
      double last = rate(c, sizes.get(sizes.size() - 1));
      cells.add(Fmt.percent(last / first));
      cells.add(any ? Long.toString(sum.lost()) : Fmt.NONE);
      cells.add(any ? Long.toString(sum.duplicates()) : Fmt.NONE);
      if (sum.unexpected() > 0) {
        notes.add(sum.unexpected() + " unexpected deliveries");
      }
      cells.add(joinNotes(notes));
      row(cells.toArray(String[]::new));
    }
    List<String> ceiling = new ArrayList<>(List.of(Ceiling.NAME));
    for (int i = 0; i < sizes.size() + 3; i++) {
      ceiling.add(NA);
    }
    ceiling.add("bare ZADD, not a queue");
    row(ceiling.toArray(String[]::new));
    line();
  }

  /** What the table says about one backlog run beside its rate: load time, how it ended, slow scripts. */
  private static String backlogNote(Results.DrainResult e) {
    List<String> parts = new ArrayList<>();
    if (e.backlogLoadSeconds() > 0) {
      parts.add("loaded in " + Fmt.decimal(e.backlogLoadSeconds(), 1) + " s");
    }
    if (e.note() != null && !e.note().isEmpty()) {
      parts.add(e.note());
    }
    // why: a script that runs for many ms blocks every other client of that Redis meanwhile
    if (e.redis() != null && e.redis().evalshaMicrosPerCall() >= 10_000) {
      parts.add("one EVALSHA took " + Fmt.ms(e.redis().evalshaMicrosPerCall()) + " ms on average, blocking Redis");
    }
    return Fmt.size(e.backlog()) + ": " + String.join(", ", parts);
  }

  /** Notes of several runs; when every run says the same after its size prefix, says it once. */
  private static String joinNotes(List<String> notes) {
    List<String> bodies = notes.stream().map(n -> n.substring(n.indexOf(": ") + 2)).distinct().toList();
    if (notes.size() > 1 && bodies.size() == 1) {
      return bodies.get(0);
    }
    return String.join("; ", notes.stream().filter(n -> !n.endsWith(": ")).toList());
  }

  private double rate(String contender, int backlog) {
    return Results.find(r.backlog, e -> e.contender().equals(contender) && e.backlog() == backlog)
        .map(Results.DrainResult::perSecond).orElse(Double.NaN);
  }

  private void partitions() {
    List<Integer> counts = s.partitionCounts();
    line(PARTITIONS);
    line();
    line("delayq's drain (" + Fmt.count(s.partitionJobs()) + " due jobs, " + s.workerThreads() + " handler threads)"
        + " with its queue split over " + counts.stream().map(String::valueOf).reduce((a, b) -> a + ", " + b)
        .orElse("") + " partitions, on the one Redis node (partitions spread a queue over a Redis Cluster; on one"
        + " node this shows what they cost or save; the Redis Cluster section compares the two). The others have no"
        + " partitions.");
    line();
    List<String> header = new ArrayList<>(List.of("contender"));
    counts.forEach(n -> header.add(n + (n == 1 ? " partition" : " partitions") + " (jobs/s)"));
    header.addAll(List.of("lost", "duplicates", "note"));
    row(header.toArray(String[]::new));
    line("|---" + "|---:".repeat(counts.size() + 2) + "|---|");
    for (String c : contenders) {
      List<String> cells = new ArrayList<>(List.of(c));
      if (!c.equals(DelayqContender.NAME)) {
        for (int i = 0; i < counts.size() + 2; i++) {
          cells.add(NA);
        }
        cells.add("no partitions");
        row(cells.toArray(String[]::new));
        continue;
      }
      Integrity sum = Integrity.NONE;
      List<String> notes = new ArrayList<>();
      for (int n : counts) {
        Optional<Results.DrainResult> x = Results.find(r.partitions, e -> e.partitions() == n);
        cells.add(x.map(e -> Fmt.rate(e.perSecond())).orElse(Fmt.NONE));
        if (x.isPresent() && x.get().integrity() != null) {
          sum = sum.plus(x.get().integrity());
        }
        x.filter(e -> e.note() != null && !e.note().isEmpty()).ifPresent(e -> notes.add(n + ": " + e.note()));
      }
      cells.add(Long.toString(sum.lost()));
      cells.add(Long.toString(sum.duplicates()));
      if (sum.unexpected() > 0) {
        notes.add(sum.unexpected() + " unexpected deliveries");
      }
      cells.add(String.join("; ", notes));
      row(cells.toArray(String[]::new));
    }
    List<String> ceiling = new ArrayList<>(List.of(Ceiling.NAME));
    for (int i = 0; i < counts.size() + 2; i++) {
      ceiling.add(NA);
    }
    ceiling.add("bare ZADD, not a queue");
    row(ceiling.toArray(String[]::new));
    line();
  }

  /** The heading of the Redis Cluster section, for the partition counts compared. */
  static String clusterHeading(List<Integer> counts) {
    return "## Redis Cluster: " + andList(counts) + " partitions";
  }

  private static int clusterNodes() {
    return BenchCluster.MASTERS * (1 + BenchCluster.REPLICAS_PER_MASTER);
  }

  private void cluster() {
    List<Integer> counts = s.partitionCounts();
    line(clusterHeading(counts));
    line();
    line("delayq alone, with its queue split over " + andList(counts) + " partitions: first on the single node every"
        + " table above uses, then on a Redis Cluster of " + BenchCluster.MASTERS + " masters with "
        + BenchCluster.REPLICAS_PER_MASTER + " replica each (" + clusterNodes() + " `redis-server` processes, started"
        + " for this section from the same binary with the same settings: `save \"\"`, no AOF, `maxmemory-policy"
        + " noeviction`). Each master streams every write to its replica, which costs it a little; delayq does not"
        + " wait for the replicas (its default). " + Fmt.count(s.clusterJobs()) + " jobs per cell on both. Enqueue:"
        + " the bulk call (`scheduleAll` in chunks of " + Fmt.count(s.bulkChunk()) + " from one thread), jobs due in"
        + " a day, as in the enqueue table. Drain: jobs all due before the " + s.workerThreads() + " handler threads"
        + " start, as in the drain table. delayq finds the cluster from one node's URL. A partition's keys share a"
        + " hash tag, so the queue name fixes which master serves each partition; the note gives how many"
        + " partitions the busiest to the idlest master served.");
    line();
    List<String> header = new ArrayList<>(List.of("topology"));
    for (Results.ClusterMeasure m : Results.ClusterMeasure.values()) {
      counts.forEach(n -> header.add(m.name().toLowerCase(Locale.ROOT) + ", " + n
          + (n == 1 ? " partition" : " partitions") + " (jobs/s)"));
    }
    header.addAll(List.of("lost", "duplicates", "note"));
    row(header.toArray(String[]::new));
    line("|---" + "|---:".repeat(2 * counts.size() + 2) + "|---|");
    for (String topology : ClusterScenario.TOPOLOGIES) {
      List<String> cells = new ArrayList<>(List.of(clusterLabel(topology)));
      Integrity sum = Integrity.NONE;
      boolean any = false;
      List<String> notes = new ArrayList<>();
      List<String> spread = new ArrayList<>();
      for (Results.ClusterMeasure m : Results.ClusterMeasure.values()) {
        for (int n : counts) {
          Results.ClusterResult x = ClusterScenario.find(r, topology, m, n);
          cells.add(x == null ? Fmt.NONE : Fmt.rate(x.perSecond()));
          if (x != null && x.integrity() != null) {
            sum = sum.plus(x.integrity());
            any = true;
          }
          if (x != null && x.note() != null && !x.note().isEmpty()) {
            notes.add(m.name().toLowerCase(Locale.ROOT) + " " + n + ": " + x.note());
          }
          if (m == Results.ClusterMeasure.ENQUEUE) {
            Results.find(r.cluster, e -> e.topology().equals(topology) && e.partitions() == n
                    && !e.partitionsPerMaster().isEmpty())
                .ifPresent(e -> spread.add(n + " → " + e.partitionsPerMaster()));
          }
        }
      }
      cells.add(any ? Long.toString(sum.lost()) : Fmt.NONE);
      cells.add(any ? Long.toString(sum.duplicates()) : Fmt.NONE);
      if (sum.unexpected() > 0) {
        notes.add(sum.unexpected() + " unexpected deliveries");
      }
      if (!spread.isEmpty()) {
        notes.add(0, "partitions per master: " + String.join(", ", spread));
      }
      cells.add(joinNotes(notes));
      row(cells.toArray(String[]::new));
    }
    line();
    List<String> findings = clusterFindings();
    if (!findings.isEmpty()) {
      line(String.join(" ", findings));
      line();
    }
    line(clusterLimits());
    line();
  }

  private static String clusterLabel(String topology) {
    return topology.equals(ClusterScenario.CLUSTER)
        ? topology + " (" + BenchCluster.REPLICAS_PER_MASTER + " replica each)" : topology;
  }

  private double clusterRate(String topology, Results.ClusterMeasure measure, int partitions) {
    Results.ClusterResult x = ClusterScenario.find(r, topology, measure, partitions);
    return x == null || !(x.perSecond() > 0) ? Double.NaN : x.perSecond();
  }

  /** Sentences computed from the cluster table: cluster against single node, and 1 against 16 partitions. */
  private List<String> clusterFindings() {
    List<Integer> counts = s.partitionCounts();
    String single = ClusterScenario.SINGLE_NODE;
    String cluster = ClusterScenario.CLUSTER;
    List<String> out = new ArrayList<>();
    List<Double> ratios = new ArrayList<>();
    List<String> enqueue = new ArrayList<>();
    List<String> drain = new ArrayList<>();
    for (int n : counts) {
      double e = clusterRate(cluster, Results.ClusterMeasure.ENQUEUE, n)
          / clusterRate(single, Results.ClusterMeasure.ENQUEUE, n);
      double d = clusterRate(cluster, Results.ClusterMeasure.DRAIN, n)
          / clusterRate(single, Results.ClusterMeasure.DRAIN, n);
      enqueue.add(Fmt.ratio(e));
      drain.add(Fmt.ratio(d));
      for (double x : new double[] {e, d}) {
        if (Double.isFinite(x)) {
          ratios.add(x);
        }
      }
    }
    if (ratios.isEmpty()) {
      out.add("No cell was measured on both topologies, so there is nothing to compare (see the notes).");
      return out;
    }
    out.add("Against the single node, the cluster enqueued at " + andList(enqueue) + " its rate and drained at "
        + andList(drain) + " its rate, with " + andList(counts) + " partitions.");
    double geomean = Math.exp(ratios.stream().mapToDouble(Math::log).average().orElse(Double.NaN));
    String verdict = Math.abs(geomean - 1) <= SAME_BAND ? "within " + Fmt.percent(SAME_BAND) + " of"
        : geomean > 1 ? "faster than" : "slower than";
    out.add("Over the " + ratios.size() + " cells measured on both, the cluster's rate was " + Fmt.ratio(geomean)
        + " the single node's (geometric mean): " + verdict + " one node, on this machine.");
    int lo = counts.get(0);
    int hi = counts.get(counts.size() - 1);
    if (lo != hi) {
      out.add("Going from " + lo + " to " + hi + " partitions multiplied the cluster's enqueue rate by "
          + scaling(cluster, Results.ClusterMeasure.ENQUEUE, lo, hi) + " and its drain rate by "
          + scaling(cluster, Results.ClusterMeasure.DRAIN, lo, hi) + "; the single node's by "
          + scaling(single, Results.ClusterMeasure.ENQUEUE, lo, hi) + " and "
          + scaling(single, Results.ClusterMeasure.DRAIN, lo, hi) + ".");
    }
    return out;
  }

  private String scaling(String topology, Results.ClusterMeasure measure, int from, int to) {
    return Fmt.ratio(clusterRate(topology, measure, to) / clusterRate(topology, measure, from));
  }

  /** The hand-written explanation of what limits the cluster on this machine. */
  private String clusterLimits() {
    int cores = info.machine().cores();
    int processes = clusterNodes() + 1;
    if (cores >= processes) {
      return "**What limits it here.** This machine has " + cores + " cores, enough for each of the "
          + clusterNodes() + " `redis-server` processes and the benchmark JVM to run on one of its own, but they"
          + " still share one machine's memory bandwidth and loopback network, and the JVM is at once the producer,"
          + " the workers and the client routing every call to its master.";
    }
    // why: written by hand; only the counts are filled in from the run
    return "**What limits it here.** This machine has " + cores + " cores. During the cluster runs they are shared"
        + " by " + clusterNodes() + " `redis-server` processes (" + BenchCluster.MASTERS + " masters, each also"
        + " streaming its writes to its replica, and " + BenchCluster.MASTERS * BenchCluster.REPLICAS_PER_MASTER
        + " replicas applying the same writes) and the benchmark JVM, which is the producer, the workers and the"
        + " client routing each call to its master, all at once. On the single node, the one Redis and the JVM can"
        + " each have a core; splitting the queue over " + BenchCluster.MASTERS + " masters adds processes, not"
        + " cores, so they only take turns on the same " + cores + ". This table therefore cannot show the scaling"
        + " a cluster gives when each master has a machine (or at least a core) of its own, where each serves only"
        + " its share of a queue's writes and claims; it shows what the cluster costs at equal hardware (routing,"
        + " a connection per master, replication) and that delayq's partitions do spread over the masters.";
  }

  private void rabbitmq() {
    line(RABBITMQ);
    line();
    Results.RabbitResult bare = Results.find(r.rabbitmq, x -> x.publisher().equals(RabbitScenario.BARE)).orElse(null);
    Results.RabbitResult fwd = Results.find(r.rabbitmq, x -> x.publisher().equals(RabbitScenario.FORWARDER)).orElse(null);
    Results.RabbitResult any = fwd != null ? fwd : bare;
    line("delayq-rabbitmq's `RabbitForwarder` against a bare amqp-client publisher, both on the same broker in the"
        + " same run, each publishing " + (any == null ? Fmt.NONE : Fmt.count(any.messages())) + " persistent "
        + Job.PAYLOAD_BYTES + "-byte messages with `mandatory`, a messageId and four headers to a fresh durable"
        + " queue through the default exchange, with asynchronous publisher confirms and a window of "
        + (any == null ? Fmt.NONE : Fmt.count(any.window())) + " unconfirmed messages. The bare publisher is the"
        + " ceiling: it only publishes and counts confirms. The forwarder's jobs are all due when it starts; it"
        + " claims them from delayq with a lease, publishes them, and acks them in delayq in batches once"
        + " confirmed: its clock stops when the last job is recorded as done. Each after an untimed warm-up;"
        + " the queue is then drained and counted by messageId. Broker: " + (any == null ? Fmt.NONE
        : "`" + RabbitScenario.redacted(r.rabbitmqUrl) + "` (RabbitMQ " + r.rabbitmqVersion + ")") + ". Run this section alone (the report goes to a"
        + " temp dir) with:");
    line();
    line("    " + RabbitScenario.COMMAND);
    line();
    row("publisher", "messages/s", "lost", "duplicates", "note");
    line("|---|---:|---:|---:|---|");
    for (Results.RabbitResult x : new Results.RabbitResult[] {bare, fwd}) {
      if (x != null) {
        Optional<Integrity> integrity = Optional.ofNullable(x.integrity());
        row(x.publisher(), Fmt.rate(x.perSecond()), lost(integrity), duplicates(integrity), x.note());
      }
    }
    line();
    if (bare != null && fwd != null && Double.isFinite(bare.perSecond()) && Double.isFinite(fwd.perSecond())) {
      line("**Finding.** Forwarder/bare: " + Fmt.ratio(fwd.perSecond() / bare.perSecond()) + " ("
          + Fmt.rate(fwd.perSecond()) + " against " + Fmt.rate(bare.perSecond()) + " messages/s): what claiming"
          + " from delayq and recording each confirmed job there costs on top of publishing with confirms.");
      line();
    }
  }

  private void durable() {
    line(DURABLE);
    line();
    line("delayq alone, on a primary with " + BenchReplicaPair.REPLICAS + " replica (2 `redis-server` processes,"
        + " started for this section from the same binary with the same settings: `save \"\"`, no AOF,"
        + " `maxmemory-policy noeviction`). Plain: delayq as in every table above; a call returns once the primary"
        + " has the jobs, and Redis replicates them asynchronously. Durable: `waitForReplicas("
        + BenchReplicaPair.REPLICAS + ", " + DurableScenario.WAIT_TIMEOUT.toSeconds() + " s)`; a call returns only"
        + " after the replica confirmed the write (a `WAIT` on a dedicated connection, once the writes are"
        + " answered). From one thread, jobs due in a day: " + Fmt.count(s.durableOneJobs()) + " jobs one per"
        + " `schedule` call, and " + Fmt.count(s.durableBulkJobs()) + " with `scheduleAll` in chunks of "
        + Fmt.count(s.bulkChunk()) + "; plain first, each mode after an untimed warm-up of both calls.");
    line();
    row("mode", "one at a time (jobs/s)", "scheduleAll (jobs/s)", "lost", "duplicates", "note");
    line("|---|---:|---:|---:|---:|---|");
    for (String mode : DurableScenario.MODES) {
      Results.DurableResult x = DurableScenario.find(r, mode);
      Optional<Integrity> integrity = Optional.ofNullable(x).map(Results.DurableResult::integrity);
      String label = mode.equals(DurableScenario.DURABLE)
          ? mode + " (`waitForReplicas(" + BenchReplicaPair.REPLICAS + ", "
              + DurableScenario.WAIT_TIMEOUT.toSeconds() + " s)`)"
          : mode;
      row(label, x == null ? Fmt.NONE : Fmt.rate(x.onePerSecond()), x == null ? Fmt.NONE : Fmt.rate(x.bulkPerSecond()),
          lost(integrity), duplicates(integrity), x == null ? "" : x.note());
    }
    line();
    line(durableFinding());
    line();
    // why: written by hand; only the counts are filled in from the run
    line("**Why.** Durable adds one replication round trip per call: after the primary has answered the writes,"
        + " delayq sends `WAIT " + BenchReplicaPair.REPLICAS + "` and returns only once the replica has"
        + " acknowledged them, so a producer scheduling one job at a time pays that round trip for every job."
        + " `scheduleAll` pays it once per call, after all the writes of its batch of "
        + Fmt.count(s.bulkChunk()) + " jobs, so the same round trip is spread over the whole batch.");
    line();
  }

  private void http() {
    int workers = s.httpWorkers();
    int idle = s.httpIdleConnections();
    int perTick = Math.max(1, (int) (s.steadyRatePerSecond() * HttpScenario.TICK_MILLIS / 1000));
    line(HTTP);
    line();
    line("delayq-server's HTTP API, driven from outside as workers in any language drive it: `delayq-server.jar`"
        + " of this checkout, run as its own JVM with `serve --port 0 --redis <this run's Redis>` and every other"
        + " setting at its default (so its access log is on, written to a file; JVM options default), beside the"
        + " benchmark JVM, which plays every client. Run this section alone (the report goes to a temp dir) with:");
    line();
    line("    " + HttpScenario.COMMAND);
    line();
    row("setup", "");
    line("|---|---|");
    row("workers", workers + ", each a thread with its own HTTP/1.1 keep-alive connection (a plain socket, one"
        + " request at a time), looping `POST /v1/queues/{q}/claim?max=" + s.httpClaimMax() + "&waitMs="
        + HttpWorkers.WAIT_MS + "&leaseMs=" + HttpWorkers.LEASE_MS + "`, then settling what the claim brought");
    row("idle connections", idle + ", each opened and answered one `GET /health`, then left idle for the whole"
        + " scenario; after each steady run every one is asked for `GET /health` again (idle open at end)");
    row("settling", "settle: one `POST /v1/queues/{q}/settle` per claim answer, acking its jobs as"
        + " `[{\"id\",\"token\",\"outcome\":\"ack\"}, …]` (at most " + s.httpClaimMax() + " a call); per-job"
        + " ack: one `POST /v1/queues/{q}/jobs/{id}/ack {\"token\"}` per job, for comparison");
    row("producer", "one more connection: the drain's jobs with `jobs:batch` calls of "
        + Fmt.count(HttpScenario.LOAD_BATCH) + ", one after another, all due at once, while the queue is paused"
        + " (`POST /v1/queues/{q}/pause`), then `resume`, which wakes the waiting claims; the drain is timed from"
        + " the resume. Then the steady jobs at " + Fmt.count(s.steadyRatePerSecond()) + " jobs/s as one"
        + " `jobs:batch` call of " + perTick + " every " + HttpScenario.TICK_MILLIS + " ms (paced to a fixed"
        + " schedule), each job due "
        + s.steadyDueIn().toMillis() + " ms after its call");
    row("jobs", Job.PAYLOAD_BYTES + "-byte ASCII `payload` (a JSON string), id = the job's number, `runAt` in"
        + " epoch ms, 1 partition (`PUT /v1/queues/{q}` `{\"partitions\":1}`), a new queue per run");
    row("sizes", "per way of settling, on a new queue with the workers waiting on it: a drain of "
        + Fmt.count(s.httpDrainJobs()) + " jobs, then " + s.httpSteadyDuration().toSeconds() + " s steady ("
        + Fmt.count(s.httpSteadyJobs()) + " jobs); before both, an untimed warm-up: a drain of "
        + Fmt.count(s.httpWarmupJobs()) + " jobs and " + s.httpWarmupSteady().toSeconds() + " s steady, half the"
        + " workers settling each way");
    row("machine", info.machine().cores() + " cores (nproc), shared by the server JVM, Redis and the benchmark"
        + " JVM (" + workers + " worker threads, the producer)");
    line();
    row("settling", "drain jobs", "schedule jobs/s (`jobs:batch`)", "drain jobs/s", "steady jobs", "offered jobs/s",
        "p50 ms", "p99 ms", "p99.9 ms", "max ms", "early", "server connections", "idle open at end",
        "settle errors", "lost", "duplicates", "note");
    line("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
    for (HttpWorkers.Settling settling : HttpWorkers.Settling.values()) {
      Results.HttpResult x = HttpScenario.find(r, settling.label());
      Optional<Results.HttpResult> found = Optional.ofNullable(x);
      Optional<Lateness> l = found.map(Results.HttpResult::lateness);
      Optional<Integrity> integrity = found.map(Results.HttpResult::integrity);
      row(settling.label(), Fmt.count(s.httpDrainJobs()),
          found.map(e -> Fmt.rate(e.schedulePerSecond())).orElse(Fmt.NONE),
          found.map(e -> Fmt.rate(e.drainPerSecond())).orElse(Fmt.NONE), Fmt.count(s.httpSteadyJobs()),
          found.map(e -> Fmt.rate(e.offeredPerSecond())).orElse(Fmt.NONE),
          l.map(v -> Fmt.ms(v.p50Micros())).orElse(Fmt.NONE), l.map(v -> Fmt.ms(v.p99Micros())).orElse(Fmt.NONE),
          l.map(v -> Fmt.ms(v.p999Micros())).orElse(Fmt.NONE), l.map(v -> Fmt.ms(v.maxMicros())).orElse(Fmt.NONE),
          l.map(v -> Long.toString(v.early())).orElse(Fmt.NONE),
          found.filter(e -> e.serverConnections() >= 0).map(e -> Fmt.count(e.serverConnections())).orElse(Fmt.NONE),
          found.filter(e -> e.idleOpenAtEnd() >= 0).map(e -> Fmt.count(e.idleOpenAtEnd())).orElse(Fmt.NONE),
          found.filter(e -> e.lateness() != null).map(e -> Fmt.count(e.settleErrors())).orElse(Fmt.NONE),
          lost(integrity), duplicates(integrity),
          found.map(e -> noteWithUnexpected(e.note(), e.integrity())).orElse("not run"));
    }
    line();
    line("Lateness = when the worker had read the claim answer holding the job (`Clock.systemUTC()`, µs) minus"
        + " the job's `runAt` (ms), both by this machine's clock, which the server's Redis uses too; early ones are"
        + " counted and recorded as 0. Drain jobs/s: from the resume to the last job's first receipt; schedule"
        + " jobs/s: the drain's load, from the first `jobs:batch` call to the answer of the last."
        + " Server connections: TCP connections in state ESTABLISHED on the server's address and port, counted"
        + " in `/proc/net/tcp` and `/proc/net/tcp6` (as `ss -tn state established '( sport = :PORT )'` lists"
        + " them) halfway through the steady run;"
        + " expected " + workers + " + " + idle + " + 1 = " + Fmt.count(workers + idle + 1L) + ". Settle errors:"
        + " settle elements (or acks) not answered 204. Lost and duplicates are counted by id over the drain and"
        + " the steady jobs together.");
    line();
    line(httpFinding());
    line();
  }

  /** The sentence computed from the HTTP table: batch settle against per-job ack. */
  private String httpFinding() {
    Results.HttpResult settle = HttpScenario.find(r, HttpWorkers.Settling.SETTLE.label());
    Results.HttpResult ack = HttpScenario.find(r, HttpWorkers.Settling.ACK.label());
    double drain = settle == null || ack == null ? Double.NaN : settle.drainPerSecond() / ack.drainPerSecond();
    if (!Double.isFinite(drain) || drain <= 0) {
      return "The two ways of settling were not both measured, so there is nothing to compare (see the notes).";
    }
    return "Settling each claim's jobs in one `settle` call, the workers drained at " + Fmt.ratio(drain)
        + " the rate of acking them one call per job (" + Fmt.rate(settle.drainPerSecond()) + " against "
        + Fmt.rate(ack.drainPerSecond()) + " jobs/s).";
  }

  private double durableRate(String mode, boolean bulk) {
    Results.DurableResult x = DurableScenario.find(r, mode);
    double rate = x == null ? Double.NaN : bulk ? x.bulkPerSecond() : x.onePerSecond();
    return rate > 0 ? rate : Double.NaN;
  }

  /** The sentence computed from the durable table: durable against plain, per call. */
  private String durableFinding() {
    double onePlain = durableRate(DurableScenario.PLAIN, false);
    double oneDurable = durableRate(DurableScenario.DURABLE, false);
    double bulkPlain = durableRate(DurableScenario.PLAIN, true);
    double bulkDurable = durableRate(DurableScenario.DURABLE, true);
    double one = oneDurable / onePlain;
    double bulk = bulkDurable / bulkPlain;
    if (!Double.isFinite(one) && !Double.isFinite(bulk)) {
      return "Neither call was measured in both modes, so there is nothing to compare (see the notes).";
    }
    List<String> costs = new ArrayList<>();
    if (Double.isFinite(one)) {
      costs.add(extra((1 / oneDurable - 1 / onePlain) * 1e6, "µs", 0) + " per `schedule` call");
    }
    if (Double.isFinite(bulk)) {
      costs.add(extra((1 / bulkDurable - 1 / bulkPlain) * s.bulkChunk() * 1e3, "ms", 1) + " per `scheduleAll` call of "
          + Fmt.count(s.bulkChunk()) + " jobs");
    }
    return "Waiting for the replica, delayq scheduled one job at a time at " + Fmt.ratio(one) + " its plain rate,"
        + " and with `scheduleAll` at " + Fmt.ratio(bulk) + " (durable/plain): " + String.join(" and ", costs) + ".";
  }

  /** {@code 85 µs more} or {@code 3 µs less}. */
  private static String extra(double amount, String unit, int places) {
    return Fmt.decimal(Math.abs(amount), places) + " " + unit + (amount >= 0 ? " more" : " less");
  }

  /** {@code a}, {@code a and b}, {@code a, b and c}. */
  static String andList(List<?> items) {
    List<String> text = items.stream().map(String::valueOf).toList();
    if (text.size() <= 1) {
      return String.join("", text);
    }
    return String.join(", ", text.subList(0, text.size() - 1)) + " and " + text.get(text.size() - 1);
  }

  private void plots(List<Path> plots) {
    line("## Plots");
    line();
    if (plots.isEmpty()) {
      line("No plots were written (see the run's log).");
    }
    for (Path plot : plots) {
      String name = plot.getFileName().toString().replaceFirst("\\.png$", "");
      line("![" + name + "](" + plot.toString().replace('\\', '/') + ")");
      line();
    }
  }

  private static String analysis() {
    try (java.io.InputStream in = Report.class.getResourceAsStream("where-the-time-goes.md")) {
      if (in == null) {
        throw new IllegalStateException("missing resource io/delayq/bench/where-the-time-goes.md");
      }
      return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).strip();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private void whereTheTimeGoes() {
    line(WHERE_THE_TIME_GOES);
    line();
    // why: the analysis is written by hand (a resource), the figures below it by the run
    line(analysis());
    line();
    line("The profile behind it, per job, over the drain and the steady scenarios: Redis CPU (`used_cpu_user"
        + " + used_cpu_sys` delta), commands (`total_commands_processed`), calls counted by `INFO commandstats`"
        + " (script-internal commands included), bytes in and out (`total_net_input_bytes`,"
        + " `total_net_output_bytes`), and the mean time of one EVALSHA from commandstats.");
    line();
    row("contender", "scenario", "Redis CPU µs/job", "commands/job", "commandstats calls/job", "bytes in/job",
        "bytes out/job", "EVALSHA calls/job", "µs per EVALSHA (commandstats)");
    line("|---|---|---:|---:|---:|---:|---:|---:|---:|");
    for (String c : contenders) {
      Results.find(r.drain, e -> e.contender().equals(c) && e.redis() != null)
          .ifPresent(e -> profileRow(c, "drain", e.redis(), e.jobs()));
      Results.find(r.steady, e -> e.contender().equals(c) && e.redis() != null)
          .ifPresent(e -> profileRow(c, "steady", e.redis(), e.jobs()));
    }
    line();
  }

  private void profileRow(String contender, String scenario, RedisStats.Delta d, int jobs) {
    row(contender, scenario, Fmt.decimal(d.cpuMicros() / jobs, 1), Fmt.decimal((double) d.commands() / jobs, 2),
        Fmt.decimal((double) d.commandstatsCalls() / jobs, 2), Fmt.decimal((double) d.netInBytes() / jobs, 0),
        Fmt.decimal((double) d.netOutBytes() / jobs, 0), Fmt.decimal((double) d.evalshaCalls() / jobs, 3),
        Fmt.decimal(d.evalshaMicrosPerCall(), 1));
  }

  private void method() {
    line("## How it is measured");
    line();
    line("- One JVM runs the contenders one after another against the same Redis; before each run Redis is"
        + " emptied (FLUSHALL) and the JVM collects garbage; each contender first runs a short untimed warm-up.");
    line("- Each job has an id (its number), a " + Job.PAYLOAD_BYTES + "-byte ASCII payload and a due time in epoch"
        + " ms. delayq gets the due time with `JobRequest.withRunAt` and reports it back as `LeasedJob.runAt()`;"
        + " Redisson gets a delay (due minus now, at least 0) and carries `id:due:payload` as its value; the loop"
        + " uses the due time as score and `id:payload` as member, and its script returns the score.");
    line("- Integrity is counted by id in every scenario: lost = jobs never delivered, duplicates = deliveries"
        + " beyond the first; where nothing is consumed (enqueue, memory) it compares what Redis holds with what"
        + " was sent.");
    line("- Drain and backlog runs load the due jobs through one client, due just after the load is expected to"
        + " end and spread about 100 per millisecond in the order they are scheduled; close it; and start the"
        + " workers on a fresh client once all are due. So no contender dispatches before the clock starts"
        + " (Redisson moves due values from whatever client holds the delayed queue), and Redisson's"
        + " `LREM` of each moved value from its insertion-ordered list is not made to scan by ties in due time.");
    line("- Redis counters come from `INFO all` snapshots; the snapshot's own command and traffic are left out.");
    line("- The loop's consumers decide what is due by their own clock; delayq's by the Redis server's clock;"
        + " both run on this machine, so their clocks agree.");
    line("- The Redis Cluster section runs after the single-node scenarios: delayq on the single node, then the"
        + " cluster is started, warmed up"
        + " with an untimed drain of " + Fmt.count(s.warmupJobs()) + " jobs, measured, and stopped.");
    line("- The durable schedules section runs after it: the primary and its replica are started, and once the"
        + " replica reports `master_link_status:up`, each mode is warmed up with " + Fmt.count(s.warmupJobs())
        + " jobs one at a time and " + Fmt.count(s.bulkChunk()) + " with `scheduleAll`, measured, and the two"
        + " are stopped.");
    line("- The HTTP API section runs last: `delayq-server.jar` is started on this run's Redis, the connections are"
        + " opened, both ways of settling are warmed up, each is measured (drain, then steady), and the server is"
        + " stopped with SIGTERM; Redis is emptied after it, not between its runs, since the server keeps its"
        + " queues' settings.");
    line();
  }

  // ---- helpers ----

  private void ceilingNotApplicable(int cells) {
    List<String> row = new ArrayList<>(List.of(Ceiling.NAME));
    for (int i = 0; i < cells; i++) {
      row.add(NA);
    }
    row.add("bare ZADD, not a queue: see the enqueue table");
    row(row.toArray(String[]::new));
  }

  private static <T> Function<String, Double> v(List<T> results, Function<T, String> contender,
      java.util.function.ToDoubleFunction<T> figure) {
    return name -> Results.find(results, x -> contender.apply(x).equals(name))
        .map(figure::applyAsDouble).orElse(Double.NaN);
  }

  private static String lost(Optional<Integrity> integrity) {
    return integrity.map(i -> Long.toString(i.lost())).orElse(Fmt.NONE);
  }

  private static String duplicates(Optional<Integrity> integrity) {
    return integrity.map(i -> Long.toString(i.duplicates())).orElse(Fmt.NONE);
  }

  private static String noteWithUnexpected(String note, Integrity integrity) {
    if (integrity == null || integrity.unexpected() == 0) {
      return note;
    }
    String unexpected = integrity.unexpected() + " unexpected deliveries";
    return note == null || note.isEmpty() ? unexpected : note + "; " + unexpected;
  }

  private static String minutes(double seconds) {
    long s = Math.round(seconds);
    return s / 60 + " min " + s % 60 + " s";
  }

  private void row(String... cells) {
    StringBuilder b = new StringBuilder("|");
    for (String cell : cells) {
      b.append(' ').append(cell == null ? "" : cell.replace("|", "\\|").replace("\n", " ")).append(" |");
    }
    line(b.toString());
  }

  private void line(String text) {
    md.append(text).append('\n');
  }

  private void line() {
    md.append('\n');
  }
}
