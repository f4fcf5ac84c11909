package io.delayq.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;

/**
 * The HTTP API: the real {@code delayq-server.jar}, run as its own JVM on the bench's Redis ({@link
 * BenchServer}), with {@code workers} long-polling workers and {@code idle} idle keep-alive
 * connections held open throughout. Each on its own plain-socket HTTP/1.1 connection ({@link
 * KeepAliveConnection}), so the server holds exactly workers + idle + 1 (the producer) connections,
 * which the scenario counts on the server's port mid-run, as {@code ss} would. For each way of
 * settling ({@link HttpWorkers.Settling}: batch {@code settle}, then one {@code ack} per job), after
 * an untimed warm-up of both, on a new queue with the workers already waiting on it:
 *
 * <ul>
 *   <li>drain: the queue paused, jobs scheduled due through {@code jobs:batch} (1,000 a call, one
 *       connection: the schedule rate); then the queue resumed, which wakes the waiting claims;
 *       jobs/s from the resume to the last job's first receipt;
 *   <li>steady: one producer schedules jobs at a fixed rate in a {@code jobs:batch} call every 10 ms,
 *       each due a fixed time later; lateness = the time the worker had read the claim answer holding
 *       the job minus the job's {@code runAt}, both by this machine's clock (the server's Redis runs
 *       here too).
 * </ul>
 *
 * Then every idle connection is asked for {@code GET /health} once more, to show it stayed open.
 */
final class HttpScenario {
  /** The command that runs this scenario alone, from the repository root. */
  static final String COMMAND =
      "mvn -q -DskipTests package && java -jar delayq-bench/target/delayq-bench.jar --only=http";
  /** Jobs per {@code jobs:batch} call when loading a drain (the API's maximum). */
  static final int LOAD_BATCH = 1_000;
  /** The steady producer sends one {@code jobs:batch} call this often. */
  static final long TICK_MILLIS = 10;
  private static final Duration READ_TIMEOUT = Duration.ofMillis(HttpWorkers.WAIT_MS).plusSeconds(60);
  /** Workers get this long to start waiting before anything is scheduled. */
  private static final long SETTLE_MILLIS = 300;
  /** How long workers keep running after the last first receipt, so that a duplicate is counted. */
  private static final long QUIET_MILLIS = 300;
  /** Past the last due time, how long stragglers are waited for. */
  private static final Duration GRACE = Duration.ofSeconds(30);

  private HttpScenario() {}

  /** Runs both ways of settling into {@code bench.results.http}; one that fails gets a row saying so. */
  static void run(Bench bench) throws InterruptedException {
    BenchSettings s = bench.settings;
    long startNanos = System.nanoTime();
    BenchServer server;
    try {
      server = BenchServer.start(bench.serverJar, bench.redis.uri());
    } catch (RuntimeException e) {
      bench.log("  FAILED: %s", e);
      fillMissing(bench, "not run: delayq-server did not start: " + Benchmark.brief(e));
      return;
    }
    try (server; Connections connections = Connections.open(server, s.httpWorkers(), s.httpIdleConnections())) {
      bench.log("  %s (pid %d, %s) listening after %.1f s; %d worker, %d idle and 1 producer connections open",
          server.baseUrl(), server.pid(), server.jar(), (System.nanoTime() - startNanos) / 1e9, s.httpWorkers(),
          s.httpIdleConnections());
      warmUp(bench, server, connections);
      for (HttpWorkers.Settling settling : HttpWorkers.Settling.values()) {
        Results.HttpResult result;
        try {
          result = measure(bench, server, connections, settling);
        } catch (IOException | RuntimeException e) {
          bench.log("  FAILED: %s", e);
          result = Results.HttpResult.notRun(settling.label(), s.httpDrainJobs(), s.httpSteadyJobs(),
              "failed: " + Benchmark.brief(e) + serverTail(server));
        }
        bench.results.http.add(result);
        bench.log("  %s", Summary.of(result));
      }
    } catch (IOException | RuntimeException e) {
      bench.log("  FAILED: %s", e);
      fillMissing(bench, "failed: " + Benchmark.brief(e) + serverTail(server));
    } finally {
      bench.reset();
    }
  }

  private static String serverTail(BenchServer server) {
    return "; the server's last lines: " + server.tail(3).replace('\n', ' ');
  }

  /**
   * Untimed: a drain and a steady run, with half the workers settling each way, so that both JVMs
   * have compiled the paths measured. What needs it most is the code run per request, not per job: in
   * the full run, with 1 s steady (some 2,000 claims) after a drain of 100,000 jobs, the way of settling
   * measured first drained at half the rate it reached when measured second; with 5 s steady (some
   * 10,000 claims) after 50,000 jobs, at about the same. The quick run's warm-up is small, to stay short.
   */
  private static void warmUp(Bench bench, BenchServer server, Connections connections)
      throws IOException, InterruptedException {
    BenchSettings s = bench.settings;
    int jobs = s.httpWarmupJobs();
    int steadyJobs = (int) (s.steadyRatePerSecond() * s.httpWarmupSteady().toMillis() / 1000);
    bench.log("http warm-up: %,d jobs drained and %d s steady, half the workers settling each way", jobs,
        s.httpWarmupSteady().toSeconds());
    HttpWorkers.Faults faults = new HttpWorkers.Faults();
    Pass pass = pass(bench, server, connections, worker -> HttpWorkers.Settling.values()[worker % 2], jobs,
        steadyJobs, faults);
    if (faults.any() || !pass.note().isEmpty()) {
      bench.log("  warm-up: %s%s", pass.note(), faults.any() ? "; first fault: " + faults.first() : "");
    }
  }

  private static Results.HttpResult measure(Bench bench, BenchServer server, Connections connections,
      HttpWorkers.Settling settling) throws IOException, InterruptedException {
    BenchSettings s = bench.settings;
    HttpWorkers.Faults faults = new HttpWorkers.Faults();
    bench.log("http scenario, %s: drain of %,d jobs, then %,d jobs/s for %d s", settling.label(),
        s.httpDrainJobs(), s.steadyRatePerSecond(), s.httpSteadyDuration().toSeconds());
    Pass pass = pass(bench, server, connections, worker -> settling, s.httpDrainJobs(), s.httpSteadyJobs(), faults);
    int idleOpen = connections.idleStillOpen();
    String note = pass.note();
    if (faults.any()) {
      note = DrainScenario.join(note, String.format(Locale.ROOT, "%,d claim errors, %,d reconnects; first fault: %s",
          faults.claimErrors.sum(), faults.reconnects.sum(), faults.first()));
    }
    return new Results.HttpResult(settling.label(), s.httpDrainJobs(), pass.schedulePerSecond(),
        pass.drainPerSecond(), s.httpSteadyJobs(), pass.offeredPerSecond(), pass.lateness(), pass.integrity(),
        faults.settleErrors.sum(), pass.serverConnections(), idleOpen, note);
  }

  /**
   * What one pass measured.
   *
   * @param lateness of the steady jobs only
   * @param integrity of the drain and the steady jobs together
   */
  private record Pass(double schedulePerSecond, double drainPerSecond, double offeredPerSecond, Lateness lateness,
      Integrity integrity, int serverConnections, String note) {}

  /**
   * The workers start waiting on a new queue; then a drain of {@code drainJobs} (ids 0 to drainJobs -
   * 1), loaded while the queue is paused and released by resuming it; then {@code steadyJobs} (the ids
   * after those) at the steady rate, a {@code jobs:batch} call every {@value #TICK_MILLIS} ms, each job
   * due {@code steadyDueIn} after its call; then the workers stop.
   */
  private static Pass pass(Bench bench, BenchServer server, Connections connections,
      IntFunction<HttpWorkers.Settling> settlingOfWorker, int drainJobs, int steadyJobs, HttpWorkers.Faults faults)
      throws IOException, InterruptedException {
    BenchSettings s = bench.settings;
    String queue = bench.freshQueue("http");
    KeepAliveConnection producer = connections.producer;
    createQueue(producer, queue);
    Deliveries drained = new Deliveries(drainJobs);
    Deliveries steady = new Deliveries(steadyJobs);
    DeliveryHandler handler = (index, dueMicros, receivedMicros) -> {
      if (index >= 0 && index < drainJobs) {
        drained.delivered(index, dueMicros, receivedMicros);
      } else if (index >= drainJobs) {
        steady.delivered(index - drainJobs, dueMicros, receivedMicros);
      } else {
        drained.delivered(-1, dueMicros, receivedMicros);
      }
    };
    List<String> notes = new ArrayList<>();
    HttpWorkers workers = HttpWorkers.start(server, connections.workers, queue, s.httpClaimMax(), settlingOfWorker,
        handler, faults);
    double schedulePerSecond;
    double drainPerSecond;
    double offeredPerSecond;
    int serverConnections = -1;
    try {
      workers.go();
      Thread.sleep(SETTLE_MILLIS);

      // why: paused, the queue hands out nothing while it is loaded, so the clock can start when it is resumed
      post(producer, "/v1/queues/" + queue + "/pause", 204);
      long due = System.currentTimeMillis();
      long loadStart = System.nanoTime();
      for (int from = 0; from < drainJobs; from += LOAD_BATCH) {
        schedule(producer, queue, from, Math.min(LOAD_BATCH, drainJobs - from), due);
      }
      schedulePerSecond = drainJobs / ((System.nanoTime() - loadStart) / 1e9);
      long resumed = System.nanoTime();
      post(producer, "/v1/queues/" + queue + "/resume", 204);
      Duration timeout = DrainScenario.timeout(drainJobs);
      boolean all = drained.awaitAll(timeout);
      long end = all ? drained.completedNanos() : System.nanoTime();
      drainPerSecond = drained.distinct() / ((end - resumed) / 1e9);
      if (!all) {
        notes.add(String.format(Locale.ROOT, "drain stopped after %d s with %,d of %,d received",
            timeout.toSeconds(), drained.distinct(), drainJobs));
      }

      int perTick = Math.max(1, (int) (s.steadyRatePerSecond() * TICK_MILLIS / 1000));
      int ticks = (steadyJobs + perTick - 1) / perTick;
      long tickNanos = TICK_MILLIS * 1_000_000;
      long dueIn = s.steadyDueIn().toMillis();
      long start = System.nanoTime();
      for (int tick = 0; tick < ticks; tick++) {
        // why: pace to a fixed schedule, not a fixed gap, so a slow call is caught up on rather than drifting
        long at = start + tick * tickNanos;
        for (long wait = at - System.nanoTime(); wait > 0; wait = at - System.nanoTime()) {
          LockSupport.parkNanos(wait);
        }
        int from = tick * perTick;
        schedule(producer, queue, drainJobs + from, Math.min(perTick, steadyJobs - from),
            System.currentTimeMillis() + dueIn);
        if (tick == ticks / 2) {
          // why: mid-run, with every worker in a claim or settling, and the idle connections idle
          serverConnections = server.establishedConnections();
        }
      }
      offeredPerSecond = steadyJobs / ((System.nanoTime() - start) / 1e9);
      if (!steady.awaitAll(s.steadyDueIn().plus(GRACE))) {
        notes.add("steady: not all received within " + GRACE.toSeconds() + " s of the last due time");
      }
      Thread.sleep(QUIET_MILLIS);
    } finally {
      workers.stop();
    }
    String left = leftovers(producer, queue);
    if (!left.isEmpty()) {
      notes.add(left);
    }
    return new Pass(schedulePerSecond, drainPerSecond, offeredPerSecond, steady.lateness(),
        drained.integrity().plus(steady.integrity()), serverConnections, String.join("; ", notes));
  }

  /** A {@code POST} without a body that must answer {@code status}. */
  private static void post(KeepAliveConnection connection, String target, int status) throws IOException {
    KeepAliveConnection.Answer answer = connection.send("POST", target, null);
    if (answer.status() != status) {
      throw new IllegalStateException("POST " + target + " answered " + answer.status() + ": " + answer.text());
    }
  }

  /** {@code PUT /v1/queues/{queue}} with 1 partition, as every other scenario's queue has. */
  private static void createQueue(KeepAliveConnection connection, String queue) throws IOException {
    KeepAliveConnection.Answer answer = connection.send("PUT", "/v1/queues/" + queue,
        "{\"partitions\":1}".getBytes(StandardCharsets.US_ASCII));
    if (answer.status() != 200) {
      throw new IllegalStateException("PUT /v1/queues/" + queue + " answered " + answer.status() + ": "
          + answer.text());
    }
  }

  /** One {@code jobs:batch} call: jobs {@code from} to {@code from + count - 1}, each due at {@code dueMillis}. */
  private static void schedule(KeepAliveConnection connection, String queue, int from, int count, long dueMillis)
      throws IOException {
    StringBuilder body = new StringBuilder(count * (Job.PAYLOAD_BYTES + 48)).append('[');
    for (int i = 0; i < count; i++) {
      // why: ids are digits and the payload is letters, so nothing here needs JSON escaping
      body.append(i == 0 ? "" : ",").append("{\"id\":\"").append(from + i).append("\",\"payload\":\"")
          .append(Job.PAYLOAD_TEXT).append("\",\"runAt\":").append(dueMillis).append('}');
    }
    body.append(']');
    KeepAliveConnection.Answer answer = connection.send("POST", "/v1/queues/" + queue + "/jobs:batch",
        body.toString().getBytes(StandardCharsets.US_ASCII));
    if (answer.status() != 201) {
      throw new IllegalStateException("jobs:batch of " + count + " jobs answered " + answer.status() + ": "
          + answer.text());
    }
    JsonNode scheduled = HttpWorkers.JSON.readTree(answer.body());
    int created = 0;
    for (JsonNode job : scheduled) {
      if ("created".equals(job.path("outcome").asText())) {
        created++;
      }
    }
    if (created != count) {
      throw new IllegalStateException("jobs:batch of " + count + " new jobs created " + created + ": "
          + answer.text());
    }
  }

  /** What the queue still holds once its workers stopped (every job should be settled), or "". */
  private static String leftovers(KeepAliveConnection connection, String queue) throws IOException {
    KeepAliveConnection.Answer answer = connection.send("GET", "/v1/queues/" + queue, null);
    if (answer.status() != 200) {
      return "GET /v1/queues/" + queue + " answered " + answer.status();
    }
    JsonNode stats = HttpWorkers.JSON.readTree(answer.body());
    long held = 0;
    for (String state : List.of("scheduled", "due", "active", "expired", "dead")) {
      held += stats.path(state).asLong();
    }
    return held == 0 ? "" : "the queue still holds " + stats;
  }

  /** A keep-alive connection to {@code server} that has answered one {@code GET /health}. */
  static KeepAliveConnection connect(BenchServer server) throws IOException {
    KeepAliveConnection connection = new KeepAliveConnection(server.host(), server.port(), READ_TIMEOUT);
    try {
      KeepAliveConnection.Answer answer = connection.send("GET", "/health", null);
      if (answer.status() != 200) {
        throw new IOException("GET /health answered " + answer.status() + ": " + answer.text());
      }
      return connection;
    } catch (IOException | RuntimeException e) {
      connection.close();
      throw e;
    }
  }

  /** A "not run" row for every way of settling that has none yet. */
  private static void fillMissing(Bench bench, String why) {
    for (HttpWorkers.Settling settling : HttpWorkers.Settling.values()) {
      if (find(bench.results, settling.label()) == null) {
        bench.results.http.add(Results.HttpResult.notRun(settling.label(), bench.settings.httpDrainJobs(),
            bench.settings.httpSteadyJobs(), why));
      }
    }
  }

  /** The row of that way of settling, or {@code null}. */
  static Results.HttpResult find(Results results, String settling) {
    return Results.find(results.http, x -> x.settling().equals(settling)).orElse(null);
  }

  /** Every connection the scenario holds to the server. */
  static final class Connections implements AutoCloseable {
    final KeepAliveConnection producer;
    /** One per worker; a worker replaces its own when it breaks. */
    final List<KeepAliveConnection> workers;
    final List<KeepAliveConnection> idle;

    private Connections(KeepAliveConnection producer, List<KeepAliveConnection> workers,
        List<KeepAliveConnection> idle) {
      this.producer = producer;
      this.workers = workers;
      this.idle = idle;
    }

    /** Opens them all, each having answered one {@code GET /health}. */
    static Connections open(BenchServer server, int workers, int idle) throws IOException {
      List<KeepAliveConnection> opened = new ArrayList<>();
      try {
        KeepAliveConnection producer = connect(server);
        opened.add(producer);
        List<KeepAliveConnection> workerConnections = new ArrayList<>();
        for (int i = 0; i < workers; i++) {
          workerConnections.add(connect(server));
          opened.add(workerConnections.get(i));
        }
        List<KeepAliveConnection> idleConnections = new ArrayList<>();
        for (int i = 0; i < idle; i++) {
          idleConnections.add(connect(server));
          opened.add(idleConnections.get(i));
        }
        return new Connections(producer, workerConnections, idleConnections);
      } catch (IOException | RuntimeException e) {
        opened.forEach(KeepAliveConnection::close);
        throw e;
      }
    }

    /** Idle connections that still answer {@code GET /health} with 200 (which keeps them open). */
    int idleStillOpen() {
      int open = 0;
      for (KeepAliveConnection connection : idle) {
        try {
          if (connection.send("GET", "/health", null).status() == 200) {
            open++;
          }
        } catch (IOException e) {
          // closed by the server: not counted
        }
      }
      return open;
    }

    @Override
    public void close() {
      producer.close();
      workers.forEach(KeepAliveConnection::close);
      idle.forEach(KeepAliveConnection::close);
    }
  }
}
