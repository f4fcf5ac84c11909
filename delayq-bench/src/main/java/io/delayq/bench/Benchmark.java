package io.delayq.bench;

import io.delayq.Delayq;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Runs every scenario for every contender, one after another, on one Redis, and the memory of
 * delayq's idempotency window there ({@link IdempotencyScenario}); then delayq alone on that Redis
 * and on a Redis Cluster ({@link ClusterScenario}); then delayq's enqueue on a primary with one
 * replica, with and without waiting for it ({@link DurableScenario}); last delayq-server's HTTP API
 * on that Redis ({@link HttpScenario}). A contender that fails in one scenario gets a row saying
 * so, and the run goes on. Only the {@link Scenario}s asked for run ({@code --only}).
 */
final class Benchmark {
  /** The queues compared; the redis-benchmark ceiling is measured apart ({@link Ceiling}). */
  static final List<Contender.Factory> CONTENDERS = List.of(
      DelayqContender.factory(1),
      RedissonContender.factory(),
      SortedSetLoopContender.factory(1),
      SortedSetLoopContender.factory(SortedSetLoopContender.BATCH));

  private final Bench bench;
  private final Set<Scenario> scenarios;

  Benchmark(Bench bench, Set<Scenario> scenarios) {
    this.bench = bench;
    this.scenarios = scenarios;
  }

  private boolean runs(Scenario scenario) {
    return scenarios.contains(scenario);
  }

  Results run() {
    BenchSettings s = bench.settings;
    Results results = bench.results;

    if (runs(Scenario.CEILING)) {
      bench.log("ceiling: redis-benchmark ZADD, %d clients, plain and -P %d", Ceiling.CLIENTS, Ceiling.PIPELINE);
      results.ceiling = Ceiling.measure(bench.redis.binary(), bench.redis.port(), s.ceilingRequests(),
          s.ceilingPipelinedRequests());
      bench.reset();
      bench.log("  %s", results.ceiling.available()
          ? String.format("%,.0f ZADD/s; pipelined %,.0f ZADD/s", results.ceiling.zaddPerSecond(),
              results.ceiling.pipelinedZaddPerSecond())
          : results.ceiling.unavailable());
    }

    if (scenarios.stream().anyMatch(Scenario.CONTENDER_TABLES::contains)) {
      for (Contender.Factory f : CONTENDERS) {
        attempt("warm-up", f, () -> {
          Warmup.run(bench, f);
          return null;
        }, r -> { }, e -> null);
      }
    }
    for (Contender.Factory f : runs(Scenario.ENQUEUE) ? CONTENDERS : List.<Contender.Factory>of()) {
      attempt("enqueue", f, () -> EnqueueScenario.run(bench, f), results.enqueue::add,
          e -> new Results.EnqueueResult(f.name(), s.enqueueJobs(), Double.NaN, Double.NaN, null, e));
    }
    for (Contender.Factory f : runs(Scenario.DRAIN) ? CONTENDERS : List.<Contender.Factory>of()) {
      attempt("drain", f, () -> DrainScenario.run(bench, f, s.drainJobs(), 1), results.drain::add,
          e -> Results.DrainResult.notRun(f.name(), s.drainJobs(), 1, 0, e));
    }
    for (Contender.Factory f : runs(Scenario.STEADY) ? CONTENDERS : List.<Contender.Factory>of()) {
      attempt("steady", f, () -> SteadyScenario.run(bench, f), results.steady::add,
          e -> new Results.SteadyResult(f.name(), s.steadyJobs(), Double.NaN, null, null, null, e));
    }
    for (Contender.Factory f : runs(Scenario.IDLE) ? CONTENDERS : List.<Contender.Factory>of()) {
      attempt("idle", f, () -> IdleScenario.run(bench, f), results.idle::add,
          e -> new Results.IdleResult(f.name(), Double.NaN, Double.NaN, Double.NaN, null, e));
    }
    for (Contender.Factory f : runs(Scenario.MEMORY) ? CONTENDERS : List.<Contender.Factory>of()) {
      memoryThenBacklog(f);
    }
    if (runs(Scenario.IDEMPOTENCY)) {
      attempt("idempotency window", DelayqContender.factory(1), () -> IdempotencyScenario.run(bench),
          r -> results.idempotency = r,
          e -> Results.IdempotencyResult.notRun(s.memoryJobs(), Delayq.Builder.DEFAULT_IDEMPOTENCY_WINDOW, e));
    }
    for (int backlog : runs(Scenario.BACKLOG) ? s.backlogSizes() : List.<Integer>of()) {
      for (Contender.Factory f : CONTENDERS) {
        if (Results.find(results.backlog, x -> x.contender().equals(f.name()) && x.backlog() == backlog).isEmpty()) {
          attempt(String.format("backlog %,d", backlog), f, () -> BacklogScenario.run(bench, f, backlog),
              results.backlog::add, e -> Results.DrainResult.notRun(f.name(), s.backlogDueJobs(), 1, backlog, e));
        }
      }
    }
    for (int partitions : runs(Scenario.PARTITIONS) ? s.partitionCounts() : List.<Integer>of()) {
      Contender.Factory f = DelayqContender.factory(partitions);
      attempt("partitions " + partitions, f, () -> PartitionsScenario.run(bench, partitions),
          results.partitions::add, e -> Results.DrainResult.notRun(f.name(), s.partitionJobs(), partitions, 0, e));
    }
    if (runs(Scenario.CLUSTER)) {
      bench.log("cluster: delayq at %s partitions, on the single node, then on a %d-master Redis Cluster",
          s.partitionCounts(), BenchCluster.MASTERS);
      try {
        ClusterScenario.run(bench);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted during the cluster scenario", e);
      }
    }
    if (runs(Scenario.DURABLE)) {
      bench.log("durable: delayq's enqueue on a primary with %d replica, plain, then with waitForReplicas(%d, %d s)",
          BenchReplicaPair.REPLICAS, BenchReplicaPair.REPLICAS, DurableScenario.WAIT_TIMEOUT.toSeconds());
      try {
        DurableScenario.run(bench);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted during the durable scenario", e);
      }
    }
    if (runs(Scenario.HTTP)) {
      bench.log("http: delayq-server as its own process, %d long-polling workers (claim max %d, waitMs %d),"
          + " %d idle keep-alive connections; batch settle, then per-job ack", s.httpWorkers(), s.httpClaimMax(),
          HttpWorkers.WAIT_MS, s.httpIdleConnections());
      try {
        HttpScenario.run(bench);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted during the http scenario", e);
      }
    }
    if (runs(Scenario.RABBITMQ)) {
      bench.log("rabbitmq: RabbitForwarder against a bare amqp-client publisher with async confirms, window %d, at %s",
          RabbitScenario.WINDOW, RabbitScenario.redacted(bench.rabbitmqUrl));
      try {
        RabbitScenario.run(bench);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted during the rabbitmq scenario", e);
      }
    }
    return results;
  }

  /**
   * The memory scenario; then, when the jobs it leaves pending are one of the backlog sizes, the
   * backlog run over them, before Redis is emptied. Loading a million jobs once instead of twice
   * saves about a minute for Redisson.
   */
  private void memoryThenBacklog(Contender.Factory f) {
    BenchSettings s = bench.settings;
    Results results = bench.results;
    String queue = bench.freshQueue("memory");
    try {
      Results.MemoryResult[] memory = new Results.MemoryResult[1];
      attempt("memory", f, () -> MemoryScenario.run(bench, f, queue, s.backlogDueJobs()), m -> {
        memory[0] = m;
        results.memory.add(m);
      }, e -> new Results.MemoryResult(f.name(), s.memoryJobs(), Double.NaN, Double.NaN, null, e));
      int backlog = s.memoryJobs();
      boolean loaded = memory[0] != null && memory[0].integrity() != null && memory[0].integrity().clean();
      if (loaded && runs(Scenario.BACKLOG) && s.backlogSizes().contains(backlog)
          && BacklogScenario.whyNotRun(bench, f.name(), backlog) == null) {
        attempt(String.format("backlog %,d (the memory scenario's jobs)", backlog), f,
            () -> BacklogScenario.overLoadedBacklog(bench, f, queue, backlog, memory[0].loadSeconds()),
            results.backlog::add, e -> Results.DrainResult.notRun(f.name(), s.backlogDueJobs(), 1, backlog, e));
      }
    } finally {
      bench.reset();
    }
  }

  /** Runs one scenario for one contender; a failure becomes a result whose note says what went wrong. */
  private <T> void attempt(String scenario, Contender.Factory f, Step<T> step, Consumer<T> onResult,
      Function<String, T> onFailure) {
    bench.log("%s: %s", scenario, f.name());
    T result;
    try {
      result = step.run();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted during " + scenario + " of " + f.name(), e);
    } catch (RuntimeException e) {
      bench.log("  FAILED: %s", e);
      result = onFailure.apply("failed: " + brief(e));
      try {
        bench.reset();
      } catch (RuntimeException flushFailed) {
        throw new IllegalStateException("Redis is gone after " + scenario + " of " + f.name(), flushFailed);
      }
    }
    if (result != null) {
      onResult.accept(result);
      bench.log("  %s", Summary.of(result));
    }
  }

  /** The exception's type and the first sentence of its message: enough for a table cell. */
  static String brief(Throwable e) {
    String message = String.valueOf(e.getMessage());
    int end = message.indexOf(". ");
    if (end > 0) {
      message = message.substring(0, end);
    }
    if (message.length() > 160) {
      message = message.substring(0, 157) + "...";
    }
    return e.getClass().getSimpleName() + ": " + message;
  }

  @FunctionalInterface
  private interface Step<T> {
    T run() throws InterruptedException;
  }
}
