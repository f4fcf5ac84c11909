package io.delayq.bench;

import io.delayq.Delayq;
import io.delayq.DuplicatePolicy;
import io.delayq.JobQueue;
import io.delayq.JobRequest;
import io.delayq.LeasedJob;
import io.delayq.QueueStats;
import io.delayq.WorkerOptions;
import io.delayq.Workers;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * delayq, through its public API only: {@code schedule} for the plain call, {@code scheduleAll} for
 * bulk, {@code startWorkers} with the default lease and claim batch for consumers. Every setting of
 * the client is the library's default, as users get it, the idempotency window included; jobs are
 * scheduled with the default {@code DuplicatePolicy.REPLACE}, whose finished ids the window does
 * not keep. The durable variant ({@link #durableFactory}) differs only in {@code waitForReplicas};
 * the ones the idempotency scenario runs ({@link #keepFactory}) schedule with {@code KEEP}, whose
 * ids the window keeps, and set {@code idempotencyWindow}.
 */
final class DelayqContender implements Contender {
  static final String NAME = "delayq";

  private final Delayq delayq;
  private final JobQueue queue;
  private final DuplicatePolicy onDuplicate;

  private DelayqContender(Delayq delayq, String queueName, int partitions, DuplicatePolicy onDuplicate) {
    this.delayq = delayq;
    this.onDuplicate = onDuplicate;
    try {
      this.queue = delayq.queue(queueName, partitions);
    } catch (RuntimeException e) {
      delayq.close();
      throw e;
    }
  }

  /** delayq with queues of {@code partitions} partitions and the default settings (idempotency window on). */
  static Factory factory(int partitions) {
    return factory(partitions, Delayq::connect, DuplicatePolicy.REPLACE);
  }

  /**
   * delayq with queues of one partition, jobs scheduled with {@code KEEP}, and ids of finished jobs
   * remembered for {@code window} ({@code idempotencyWindow(window)}; {@link Duration#ZERO} turns
   * the window off).
   */
  static Factory keepFactory(Duration window) {
    return factory(1, uri -> Delayq.builder().redisUrl(uri).idempotencyWindow(window).build(), DuplicatePolicy.KEEP);
  }

  /**
   * delayq with queues of one partition whose {@code schedule} and {@code scheduleAll} return only
   * once {@code replicas} replicas confirmed the write ({@code waitForReplicas(replicas, timeout)}).
   */
  static Factory durableFactory(int replicas, Duration timeout) {
    return factory(1, uri -> Delayq.builder().redisUrl(uri).waitForReplicas(replicas, timeout).build(),
        DuplicatePolicy.REPLACE);
  }

  private static Factory factory(int partitions, Function<String, Delayq> connect, DuplicatePolicy onDuplicate) {
    return new Factory() {
      @Override
      public String name() {
        return NAME;
      }

      @Override
      public Contender open(String redisUri, String queue) {
        return new DelayqContender(connect.apply(redisUri), queue, partitions, onDuplicate);
      }
    };
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public void enqueue(Job job) {
    queue.schedule(request(job));
  }

  @Override
  public void enqueueBulk(List<Job> jobs) {
    List<JobRequest> requests = new ArrayList<>(jobs.size());
    for (Job job : jobs) {
      requests.add(request(job));
    }
    queue.scheduleAll(requests);
  }

  private JobRequest request(Job job) {
    return JobRequest.of(Job.PAYLOAD).withId(job.id()).withRunAt(Instant.ofEpochMilli(job.dueMillis()))
        .withOnDuplicate(onDuplicate);
  }

  @Override
  public Running startWorkers(int threads, DeliveryHandler handler) {
    Workers workers = queue.startWorkers(
        (LeasedJob job) -> {
          long start = BenchClock.nowMicros();
          // why: runAt is the job's due time as delayq stored it, so lateness is against delayq's own schedule
          handler.delivered(Integer.parseInt(job.id()), BenchClock.micros(job.runAt()), start);
        },
        WorkerOptions.builder().concurrency(threads).build());
    return workers::close;
  }

  @Override
  public long pending() {
    QueueStats stats = queue.admin().stats();
    // why: a job whose lease ended without an ack is still the queue's to deliver again
    return stats.scheduled() + stats.active() + stats.expired();
  }

  @Override
  public void close() {
    delayq.close();
  }
}
