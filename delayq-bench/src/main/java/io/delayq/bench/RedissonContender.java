package io.delayq.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.redisson.Redisson;
import org.redisson.RedissonShutdownException;
import org.redisson.api.RBlockingQueue;
import org.redisson.api.RDelayedQueue;
import org.redisson.api.RFuture;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisException;
import org.redisson.config.Config;

/**
 * Redisson's {@code RDelayedQueue} over an {@code RBlockingQueue}, as most Java teams use it: {@code
 * offer(value, delay, unit)} to schedule, {@code offerAsync} for bulk, consumer threads blocked in
 * {@code take()}. The client is configured with the Redis address only; everything else (codec,
 * pools, threads) is Redisson's default.
 *
 * <p>The queued value is text {@code index:dueMillis:payload}: Redisson hands back only the value,
 * so the due time must travel inside it to measure lateness.
 *
 * <p>Redisson 3.x deprecates {@code RDelayedQueue} in favour of {@code RReliableQueue} (and logs an
 * error each time one is made); it is still what most Java teams run, so it is what is measured.
 */
// why: RDelayedQueue is deprecated, and it is the very thing under test
@SuppressWarnings("deprecation")
final class RedissonContender implements Contender {
  static final String NAME = "Redisson RDelayedQueue";
  /** What each consumer takes as its signal to stop: stopping by interrupt could lose a job to a cancelled BLPOP. */
  private static final String STOP = "stop";
  /**
   * How long a call is retried when Redisson times out. Over a large backlog one of Redisson's own
   * transfer scripts can keep Redis busy for longer than its 3 s response timeout.
   */
  private static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(60);

  private final RedissonClient redisson;
  private final RBlockingQueue<String> target;
  private RDelayedQueue<String> delayed;
  private boolean transferStopped;

  private RedissonContender(String redisUri, String queueName) {
    Config config = new Config();
    config.useSingleServer().setAddress(redisUri);
    this.redisson = Redisson.create(config);
    this.target = redisson.getBlockingQueue(queueName);
  }

  /**
   * The delayed queue, made on first use. Making it starts Redisson's transfer task in this client
   * (the task that moves due values into the target queue), so it is made when the instance is
   * first used, not when it connects: a drain then counts the transfer of due jobs from the moment
   * its workers start, as it does for the other contenders.
   */
  private synchronized RDelayedQueue<String> delayed() {
    if (delayed == null) {
      delayed = redisson.getDelayedQueue(target);
    }
    return delayed;
  }

  static Factory factory() {
    return new Factory() {
      @Override
      public String name() {
        return NAME;
      }

      @Override
      public Contender open(String redisUri, String queue) {
        return new RedissonContender(redisUri, queue);
      }
    };
  }

  /** The codec Redisson picks when none is configured, for the report. */
  static String defaultCodec() {
    // why: a Config leaves the codec unset; the copy Redisson.create makes fills in the default, as here
    return new Config(new Config()).getCodec().getClass().getSimpleName();
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public void enqueue(Job job) {
    delayed().offer(value(job), delayMillis(job), TimeUnit.MILLISECONDS);
  }

  @Override
  public void enqueueBulk(List<Job> jobs) {
    RDelayedQueue<String> delayed = delayed();
    List<RFuture<Void>> futures = new ArrayList<>(jobs.size());
    for (Job job : jobs) {
      futures.add(delayed.offerAsync(value(job), delayMillis(job), TimeUnit.MILLISECONDS));
    }
    for (RFuture<Void> future : futures) {
      future.toCompletableFuture().join();
    }
  }

  private static String value(Job job) {
    return job.index() + ":" + job.dueMillis() + ":" + Job.PAYLOAD_TEXT;
  }

  /** Redisson takes a delay, not a time; a due time in the past is a delay of 0. */
  private static long delayMillis(Job job) {
    return Math.max(0, job.dueMillis() - System.currentTimeMillis());
  }

  @Override
  public Running startWorkers(int threads, DeliveryHandler handler) {
    delayed();
    List<Thread> consumers = new ArrayList<>(threads);
    for (int i = 0; i < threads; i++) {
      Thread t = new Thread(() -> consume(handler), "bench-redisson-consumer-" + i);
      t.setDaemon(true);
      consumers.add(t);
      t.start();
    }
    return () -> {
      // why: stop the transfer task first, so that no new transfer script keeps Redis from answering
      stopTransfer();
      for (int i = 0; i < consumers.size(); i++) {
        retrying(() -> target.add(STOP));
      }
      Threads.joinAll(consumers);
    };
  }

  private synchronized void stopTransfer() {
    if (delayed != null && !transferStopped) {
      delayed.destroy();
      transferStopped = true;
    }
  }

  /** Runs {@code call}, again while Redisson reports a timeout or a busy Redis, for up to a minute. */
  private static <T> T retrying(Supplier<T> call) {
    long deadline = System.nanoTime() + RETRY_NANOS;
    while (true) {
      try {
        return call.get();
      } catch (RedisException e) {
        if (e instanceof RedissonShutdownException || System.nanoTime() - deadline > 0) {
          throw e;
        }
        Threads.sleep(100);
      }
    }
  }

  private void consume(DeliveryHandler handler) {
    while (true) {
      String value;
      try {
        value = target.take();
      } catch (InterruptedException e) {
        return;
      } catch (RedisException e) {
        // why: Redisson shut down under a blocked take(), or Redis failed it: this consumer is done
        System.err.println(Thread.currentThread().getName() + " stopped: " + e);
        return;
      }
      long start = BenchClock.nowMicros();
      if (STOP.equals(value)) {
        return;
      }
      int first = value.indexOf(':');
      int second = value.indexOf(':', first + 1);
      int index = Integer.parseInt(value, 0, first, 10);
      long due = Long.parseLong(value, first + 1, second, 10);
      handler.delivered(index, due * 1_000, start);
    }
  }

  @Override
  public long pending() {
    RDelayedQueue<String> queue = delayed();
    return retrying(queue::size) + retrying(target::size);
  }

  @Override
  public void close() {
    try {
      stopTransfer();
    } finally {
      redisson.shutdown();
    }
  }
}
