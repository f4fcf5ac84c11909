package io.delayq.bench;

import java.util.List;
import java.util.Locale;

/**
 * Redis Cluster: delayq's bulk enqueue and drain with its queue split over 1, 4 and 16 partitions,
 * first on the single node every other scenario uses, then on a {@value BenchCluster#MASTERS}-master
 * Redis Cluster with {@value BenchCluster#REPLICAS_PER_MASTER} replica per master ({@link
 * BenchCluster}), started for this scenario from the same {@code redis-server} binary with the same
 * settings, and stopped after it. Both topologies get the same job counts and the same measurement:
 * the enqueue scenario's bulk run (jobs due in a day, so nothing drains) and the drain scenario.
 *
 * <p>The queue names are fixed, so a partition count puts its partitions on the same masters in every
 * run (the partitions' hash tags, and so their slots, follow from the queue name); the report says
 * how many partitions each master got.
 */
final class ClusterScenario {
  static final String SINGLE_NODE = "single node";
  static final String CLUSTER = BenchCluster.MASTERS + "-master cluster";
  static final List<String> TOPOLOGIES = List.of(SINGLE_NODE, CLUSTER);
  private static final String WARMUP_QUEUE = "bench-cluster-warmup";

  private ClusterScenario() {}

  /** The queue every run at {@code partitions} partitions uses, on both topologies. */
  static String queue(int partitions) {
    return "bench-cluster-p" + partitions;
  }

  /** Runs every cell into {@code bench.results.cluster}; a cell that fails gets a row saying so. */
  static void run(Bench bench) throws InterruptedException {
    measureAll(bench, bench.redis, SINGLE_NODE, null);

    bench.log("cluster: starting %d masters with %d replica each (%s)", BenchCluster.MASTERS,
        BenchCluster.REPLICAS_PER_MASTER, bench.redis.binary());
    long start = System.nanoTime();
    BenchCluster cluster;
    try {
      cluster = BenchCluster.start(bench.redis.binary());
    } catch (RuntimeException e) {
      bench.log("  FAILED: %s", e);
      fillMissing(bench, CLUSTER, "not run: the cluster did not start: " + Benchmark.brief(e));
      return;
    }
    try (cluster) {
      bench.log("  ready in %.1f s: %s", (System.nanoTime() - start) / 1e9, cluster.describe());
      warmUp(bench, cluster);
      measureAll(bench, cluster, CLUSTER, cluster);
    } catch (RuntimeException e) {
      // why: a cluster that cannot be flushed any more makes the cells after it meaningless, not the whole run
      bench.log("  FAILED: %s", e);
      fillMissing(bench, CLUSTER, "not run: " + Benchmark.brief(e));
    }
  }

  /**
   * For each partition count: the bulk enqueue, then the drain. {@code cluster} is the cluster when
   * {@code redis} is one, else {@code null}.
   */
  private static void measureAll(Bench bench, RedisTarget redis, String topology, BenchCluster cluster)
      throws InterruptedException {
    BenchSettings s = bench.settings;
    int jobs = s.clusterJobs();
    for (int partitions : s.partitionCounts()) {
      String queue = queue(partitions);
      String spread = cluster == null ? "" : cluster.partitionsPerMaster(queue, partitions);
      Contender.Factory factory = DelayqContender.factory(partitions);
      cell(bench, redis, topology, Results.ClusterMeasure.ENQUEUE, partitions, () -> {
        EnqueueScenario.Bulk bulk = EnqueueScenario.bulk(bench, redis, factory, queue, jobs,
            EnqueueScenario.farFuture());
        bench.reset(redis);
        return new Results.ClusterResult(topology, Results.ClusterMeasure.ENQUEUE, partitions, jobs,
            bulk.perSecond(), bulk.integrity(), spread, "");
      });
      cell(bench, redis, topology, Results.ClusterMeasure.DRAIN, partitions, () -> {
        Results.DrainResult drain = DrainScenario.run(bench, redis, factory, queue, jobs, partitions);
        return new Results.ClusterResult(topology, Results.ClusterMeasure.DRAIN, partitions, jobs,
            drain.perSecond(), drain.integrity(), spread, drain.note());
      });
    }
  }

  /** One measurement; a failure becomes a result whose note says what went wrong. */
  private static void cell(Bench bench, RedisTarget redis, String topology, Results.ClusterMeasure measure,
      int partitions, Step step) throws InterruptedException {
    bench.log("cluster scenario, %s: %s, %d %s", topology, measure.name().toLowerCase(Locale.ROOT),
        partitions, partitions == 1 ? "partition" : "partitions");
    Results.ClusterResult result;
    try {
      result = step.run();
    } catch (RuntimeException e) {
      bench.log("  FAILED: %s", e);
      result = Results.ClusterResult.notRun(topology, measure, partitions, bench.settings.clusterJobs(),
          "failed: " + Benchmark.brief(e));
      bench.reset(redis);
    }
    bench.results.cluster.add(result);
    bench.log("  %s", Summary.of(result));
  }

  /**
   * Untimed: the cluster client's code paths (slot routing, one connection per master) are cold
   * even though the single node's are warm.
   */
  private static void warmUp(Bench bench, BenchCluster cluster) throws InterruptedException {
    int partitions = bench.settings.partitionCounts().stream().max(Integer::compare).orElse(1);
    bench.log("cluster warm-up: %,d jobs, %d partitions", bench.settings.warmupJobs(), partitions);
    try {
      Results.DrainResult warm = DrainScenario.run(bench, cluster, DelayqContender.factory(partitions),
          WARMUP_QUEUE, bench.settings.warmupJobs(), partitions);
      bench.log("  %s", Summary.of(warm));
    } catch (RuntimeException e) {
      // why: the cells report their own failures; a warm-up failure only makes the first one colder
      bench.log("  warm-up FAILED: %s", e);
      bench.reset(cluster);
    }
  }

  /** A "not run" row for every cell of {@code topology} that has none yet. */
  private static void fillMissing(Bench bench, String topology, String why) {
    for (int partitions : bench.settings.partitionCounts()) {
      for (Results.ClusterMeasure measure : Results.ClusterMeasure.values()) {
        if (find(bench.results, topology, measure, partitions) == null) {
          bench.results.cluster.add(Results.ClusterResult.notRun(topology, measure, partitions,
              bench.settings.clusterJobs(), why));
        }
      }
    }
  }

  /** The cell, or {@code null}. */
  static Results.ClusterResult find(Results results, String topology, Results.ClusterMeasure measure,
      int partitions) {
    return Results.find(results.cluster,
        x -> x.topology().equals(topology) && x.measure() == measure && x.partitions() == partitions).orElse(null);
  }

  @FunctionalInterface
  private interface Step {
    Results.ClusterResult run() throws InterruptedException;
  }
}
