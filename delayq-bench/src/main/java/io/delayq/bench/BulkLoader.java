package io.delayq.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntToLongFunction;

/** Loads many jobs through a contender's bulk call, in chunks, from one or more threads. */
final class BulkLoader {
  private BulkLoader() {}

  /** As {@link #load(Contender, int, int, IntToLongFunction, int, int)}, all due at {@code dueMillis}. */
  static double load(Contender contender, int from, int count, long dueMillis, int chunk, int threads)
      throws InterruptedException {
    return load(contender, from, count, index -> dueMillis, chunk, threads);
  }

  /**
   * Schedules jobs {@code from} to {@code from + count - 1}, each due when {@code dueOf} says for its
   * index, with {@link Contender#enqueueBulk} in chunks of {@code chunk}; returns the seconds it
   * took. With one thread the chunks go one after another from the calling thread, as a single
   * producer would send them.
   */
  static double load(Contender contender, int from, int count, IntToLongFunction dueOf, int chunk, int threads)
      throws InterruptedException {
    long start = System.nanoTime();
    if (threads <= 1) {
      for (int offset = 0; offset < count; offset += chunk) {
        contender.enqueueBulk(Job.range(from + offset, Math.min(chunk, count - offset), dueOf));
      }
      return (System.nanoTime() - start) / 1e9;
    }
    ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
      Thread t = new Thread(r, "bench-loader");
      t.setDaemon(true);
      return t;
    });
    try {
      List<Future<?>> chunks = new ArrayList<>();
      for (int offset = 0; offset < count; offset += chunk) {
        int first = from + offset;
        int size = Math.min(chunk, count - offset);
        // why: jobs are made inside the task, so ten million of them never sit in memory at once
        chunks.add(pool.submit(() -> contender.enqueueBulk(Job.range(first, size, dueOf))));
      }
      for (Future<?> f : chunks) {
        f.get();
      }
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
    } finally {
      pool.shutdownNow();
    }
    return (System.nanoTime() - start) / 1e9;
  }
}
