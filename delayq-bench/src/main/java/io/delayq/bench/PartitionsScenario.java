package io.delayq.bench;

/**
 * Partitions: delayq's drain with its queue split over 1, 4 and 16 partitions, on the one Redis
 * node. Partitions exist to spread a queue over a Redis Cluster; on one node this shows what
 * spreading costs or saves (more claim calls, each over a smaller set). Only delayq has partitions.
 */
final class PartitionsScenario {
  private PartitionsScenario() {}

  static Results.DrainResult run(Bench bench, int partitions) throws InterruptedException {
    return DrainScenario.run(bench, DelayqContender.factory(partitions), bench.settings.partitionJobs(), partitions);
  }
}
