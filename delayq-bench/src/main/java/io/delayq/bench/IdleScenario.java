package io.delayq.bench;

import java.lang.management.ManagementFactory;
import java.time.Duration;

/**
 * Idle: workers running on an empty queue. Measures the Redis commands they send per second
 * ({@code total_commands_processed} delta) and the CPU the benchmark JVM spends meanwhile (process
 * CPU time from {@code OperatingSystemMXBean}: the JVM runs only this contender's threads then, so
 * that is the worker process's CPU, JIT and GC included).
 */
final class IdleScenario {
  private static final long SETTLE_MILLIS = 500;

  private IdleScenario() {}

  static Results.IdleResult run(Bench bench, Contender.Factory factory) throws InterruptedException {
    Duration idle = bench.settings.idleDuration();
    bench.reset();
    Deliveries deliveries = new Deliveries(0);
    try (Contender contender = factory.open(bench.redis.uri(), bench.freshQueue("idle"))) {
      Contender.Running workers = contender.startWorkers(bench.settings.workerThreads(), deliveries);
      RedisStats.Delta delta;
      double seconds;
      double cpuPercent;
      try {
        Thread.sleep(SETTLE_MILLIS);
        RedisStats before = bench.redis.stats();
        long cpuBefore = processCpuNanos();
        long start = System.nanoTime();
        Thread.sleep(idle.toMillis());
        long cpuAfter = processCpuNanos();
        seconds = (System.nanoTime() - start) / 1e9;
        delta = bench.redis.stats().since(before);
        cpuPercent = cpuBefore < 0 ? Double.NaN : (cpuAfter - cpuBefore) / 1e9 / seconds * 100;
      } finally {
        workers.stop();
      }
      return new Results.IdleResult(factory.name(), seconds, delta.commands() / seconds, cpuPercent,
          deliveries.integrity(), "");
    } finally {
      bench.reset();
    }
  }

  /** CPU time of this JVM so far, in ns, or -1 where the JVM does not tell. */
  private static long processCpuNanos() {
    if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getProcessCpuTime();
    }
    return -1;
  }
}
