package io.delayq.server.demo;

import io.delayq.Delayq;
import io.delayq.DelayqException;
import io.delayq.JobHandler;
import io.delayq.JobQueue;
import io.delayq.JobRequest;
import io.delayq.ScheduledJob;
import io.delayq.WorkerOptions;
import io.delayq.Workers;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One run of the demo: orders that cancel themselves when unpaid. It schedules one "cancel this
 * order" job per order, due over the next few seconds, from a producer client, lets two more
 * independent clients with their own workers consume the queue together, and checks that every job was delivered exactly once and never before
 * its due time.
 *
 * <p>Each run uses a fresh queue, so runs against a shared or persistent Redis do not see each
 * other's jobs.
 */
public final class OrderCancellationDemo {
  static final int PARTITIONS = 4;
  static final int CLIENT_A_WORKERS = 8;
  static final int CLIENT_B_WORKERS = 4;
  static final int SCHEDULE_BATCH = 1_000;
  /**
   * The first order is due this long after the run starts: an unpaid order is cancelled minutes
   * later, never at once, and the lead keeps the burst of scheduling apart from the first deliveries.
   */
  static final Duration LEAD_TIME = Duration.ofSeconds(1);
  /** How long to keep listening after the last delivery, so that a duplicate would be counted. */
  static final Duration QUIET_AFTER_LAST_DELIVERY = Duration.ofMillis(500);
  static final Duration QUIET_WAIT_LIMIT = Duration.ofSeconds(5);
  static final Duration TIMEOUT_AFTER_LAST_DUE = Duration.ofSeconds(30);
  private static final long PROGRESS_EVERY_NANOS = TimeUnit.SECONDS.toNanos(1);
  private static final long POLL_MILLIS = 10;

  private final String redisUrl;
  private final int jobs;
  private final int seconds;
  private final PrintStream out;
  // why: Clock.systemUTC() has microsecond precision on Linux; System.currentTimeMillis() has only ms
  private final Clock clock = Clock.systemUTC();

  private final Map<String, Instant> scheduledDue = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> deliveries = new ConcurrentHashMap<>();
  private final Map<String, Instant> deliveredDue = new ConcurrentHashMap<>();
  private final LatenessStats lateness = new LatenessStats();
  private final AtomicInteger scheduled = new AtomicInteger();
  private final AtomicLong lastDeliveryNanos = new AtomicLong(System.nanoTime());

  /**
   * @param redisUrl the Redis to use
   * @param jobs how many orders to schedule
   * @param seconds over how many seconds from now their due times are spread
   * @param out where progress and the summary line are printed
   */
  public OrderCancellationDemo(String redisUrl, int jobs, int seconds, PrintStream out) {
    this.redisUrl = Objects.requireNonNull(redisUrl, "redisUrl");
    this.jobs = jobs;
    this.seconds = seconds;
    this.out = Objects.requireNonNull(out, "out");
  }

  /**
   * Runs the demo to the end and prints its summary line last.
   *
   * @throws DelayqException when Redis fails the run (cannot connect, or scheduling fails)
   */
  public Result run() {
    String queueName = "demo-orders-" + System.currentTimeMillis();
    AtomicInteger handledByA = new AtomicInteger();
    AtomicInteger handledByB = new AtomicInteger();
    ExecutorService producerThread = Executors.newSingleThreadExecutor(r -> new Thread(r, "demo-producer"));
    boolean allDelivered;
    long started = System.nanoTime();
    // The shape of a real deployment: the shop schedules, two worker services consume.
    try (Delayq producer = Delayq.connect(redisUrl);
        Delayq clientA = Delayq.connect(redisUrl);
        Delayq clientB = Delayq.connect(redisUrl)) {
      JobQueue queue = producer.queue(queueName, PARTITIONS);
      out.printf(Locale.ROOT,
          "queue %s (%d partitions): %d orders due over the next %d s; one producer client;"
              + " %d workers in client A, %d in client B%n",
          queueName, PARTITIONS, jobs, seconds, CLIENT_A_WORKERS, CLIENT_B_WORKERS);

      // why: workers start before scheduling, so the first jobs (due at once) are not late by the scheduling time
      Workers a = clientA.queue(queueName, PARTITIONS)
          .startWorkers(handler(handledByA), workers(CLIENT_A_WORKERS));
      Workers b = clientB.queue(queueName, PARTITIONS)
          .startWorkers(handler(handledByB), workers(CLIENT_B_WORKERS));
      started = System.nanoTime();
      CompletableFuture<Void> scheduling = CompletableFuture.runAsync(() -> scheduleAll(queue), producerThread);

      long deadline = started + Duration.ofSeconds(seconds).plus(TIMEOUT_AFTER_LAST_DUE).toNanos();
      long nextProgress = started + PROGRESS_EVERY_NANOS;
      while (deliveries.size() < jobs && System.nanoTime() < deadline) {
        failIfFailed(scheduling);
        if (!pause(POLL_MILLIS)) {
          break;
        }
        if (System.nanoTime() >= nextProgress) {
          printProgress(started, queue, a, b);
          nextProgress += PROGRESS_EVERY_NANOS;
        }
      }
      allDelivered = deliveries.size() >= jobs;
      long quietLimit = System.nanoTime() + QUIET_WAIT_LIMIT.toNanos();
      while (System.nanoTime() - lastDeliveryNanos.get() < QUIET_AFTER_LAST_DELIVERY.toNanos()
          && System.nanoTime() < quietLimit
          && pause(POLL_MILLIS)) {
        // just waiting: a duplicate, if any, would arrive now
      }
      failIfFailed(scheduling);
      printProgress(started, queue, a, b);
      a.close();
      b.close();
    } finally {
      producerThread.shutdownNow();
    }
    if (!allDelivered) {
      out.printf(Locale.ROOT, "timed out after %.1f s with %d of %d orders delivered%n",
          (System.nanoTime() - started) / 1e9, deliveries.size(), jobs);
    }
    out.printf("client A handled %d, client B handled %d%n", handledByA.get(), handledByB.get());
    Result result = result(queueName, handledByA.get(), handledByB.get());
    if (result.dueMismatches() > 0) {
      out.printf("%d job(s) were delivered with a due time other than the one scheduleAll returned%n",
          result.dueMismatches());
    }
    out.println(result.summaryLine());
    return result;
  }

  private static WorkerOptions workers(int concurrency) {
    return WorkerOptions.builder().concurrency(concurrency).build();
  }

  /** Stands in for "cancel the order if still unpaid": records the delivery and how late it was. */
  private JobHandler handler(AtomicInteger handledHere) {
    return job -> {
      Instant now = clock.instant();
      deliveries.computeIfAbsent(job.id(), id -> new AtomicInteger()).incrementAndGet();
      // why: a redelivery's runAt is when its lease expired, so only the first one is compared to the schedule
      deliveredDue.putIfAbsent(job.id(), job.runAt());
      lateness.record(job.runAt(), now);
      handledHere.incrementAndGet();
      lastDeliveryNanos.set(System.nanoTime());
    };
  }

  private void scheduleAll(JobQueue queue) {
    long spreadMillis = seconds * 1_000L;
    for (int from = 1; from <= jobs; from += SCHEDULE_BATCH) {
      int to = Math.min(jobs, from + SCHEDULE_BATCH - 1);
      List<JobRequest> batch = new ArrayList<>(to - from + 1);
      for (int i = from; i <= to; i++) {
        String id = "order-" + i;
        String payload = String.format(Locale.ROOT, "{\"order\":\"%s\",\"amount\":%.2f}", id, amount(i));
        Duration delay = LEAD_TIME.plusMillis(spreadMillis * (i - 1) / jobs);
        batch.add(JobRequest.of(payload).withId(id).withDelay(delay));
      }
      for (ScheduledJob job : queue.scheduleAll(batch)) {
        scheduledDue.put(job.id(), job.runAt());
      }
      scheduled.addAndGet(batch.size());
    }
  }

  /** A made-up order total between 1.00 and 100.99, the same for the same order number. */
  private static double amount(int i) {
    return 1 + (i * 7_919L % 10_000) / 100.0;
  }

  private void printProgress(long started, JobQueue queue, Workers a, Workers b) {
    String due;
    try {
      due = Long.toString(queue.admin().stats().due());
    } catch (DelayqException e) {
      due = "? (" + e.getMessage() + ")";
    }
    out.printf(Locale.ROOT, "t+%.1fs  scheduled %d  delivered %d  in flight %d  due-not-yet-claimed %s%n",
        (System.nanoTime() - started) / 1e9, scheduled.get(), deliveries.size(), a.inFlight() + b.inFlight(), due);
  }

  private Result result(String queueName, int handledByA, int handledByB) {
    long total = deliveries.values().stream().mapToLong(AtomicInteger::get).sum();
    long mismatches = deliveredDue.entrySet().stream()
        .filter(e -> !e.getValue().equals(scheduledDue.get(e.getKey())))
        .count();
    return new Result(queueName, jobs, deliveries.size(), total, mismatches,
        handledByA, handledByB, lateness.summary());
  }

  private static void failIfFailed(CompletableFuture<Void> scheduling) {
    if (scheduling.isCompletedExceptionally()) {
      try {
        scheduling.join();
      } catch (CompletionException e) {
        if (e.getCause() instanceof RuntimeException cause) {
          throw cause;
        }
        throw e;
      }
    }
  }

  /** Sleeps; returns false (with the interrupt flag kept) when interrupted, so the run winds down. */
  private static boolean pause(long millis) {
    try {
      Thread.sleep(millis);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * What a run found.
   *
   * @param queue the queue the run used
   * @param jobs orders scheduled
   * @param delivered distinct orders delivered at least once
   * @param deliveries handler calls in all
   * @param dueMismatches orders whose first delivery carried a due time other than the one
   *     {@code scheduleAll} returned
   * @param handledByA handler calls in client A
   * @param handledByB handler calls in client B
   * @param lateness how late the deliveries were, and how many were early
   */
  public record Result(
      String queue,
      int jobs,
      int delivered,
      long deliveries,
      long dueMismatches,
      int handledByA,
      int handledByB,
      LatenessStats.Summary lateness) {

    /** Orders never delivered. */
    public long lost() {
      return jobs - delivered;
    }

    /** Deliveries beyond the first of each order. */
    public long duplicates() {
      return deliveries - delivered;
    }

    /** Deliveries before their due time. */
    public long early() {
      return lateness.early();
    }

    /** Whether every order was delivered exactly once, none early. */
    public boolean success() {
      return lost() == 0 && duplicates() == 0 && early() == 0 && dueMismatches == 0;
    }

    /** The one line that sums up the run. */
    public String summaryLine() {
      return String.format(Locale.ROOT,
          "delivered %d/%d, lost %d, duplicates %d, early %d, lateness p50 %.1f ms p99 %.1f ms max %.1f ms",
          delivered, jobs, lost(), duplicates(), early(),
          lateness.p50Micros() / 1e3, lateness.p99Micros() / 1e3, lateness.maxMicros() / 1e3);
    }
  }
}
