package io.delayq.spring;

import io.delayq.Delayq;
import io.delayq.JobInfo;
import io.delayq.JobRequest;
import io.delayq.internal.Rules;
import io.delayq.spring.PayloadConverter.Payload;
import io.delayq.spring.internal.tx.RefusingWrites;
import io.delayq.spring.internal.tx.TransactionalWrites;
import java.lang.reflect.Type;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The producer's side of delayq in a Spring application: schedule, cancel, reschedule and look up
 * jobs, with payloads written by the application's {@link PayloadConverter} (a POJO as JSON
 * through the application's own mapper, with no type names; a {@link String} as UTF-8 text; a
 * {@code byte[]} as it is).
 *
 * <pre>{@code
 * String id = template.schedule("order-timeouts", new OrderTimeout(orderId), Duration.ofMinutes(30));
 * }</pre>
 *
 * <p><b>Outside a transaction</b> each call goes straight to Redis, as the same call on {@link
 * io.delayq.JobQueue} does, and a delay is counted by the Redis clock.
 *
 * <p><b>Inside a transaction</b> (one {@link
 * TransactionSynchronizationManager#isActualTransactionActive() actually active}) no write reaches
 * Redis before the transaction commits: a rolled-back transaction never schedules, cancels or
 * moves a job. With the auto-configured outbox, each write is a row in the {@code delayq_outbox}
 * table, written by the transaction itself; after commit the rows are sent to Redis and deleted,
 * and a relay on every instance sends the rows a stopped process left behind, so a committed
 * write is never lost. Ids are generated at the call, so the caller can keep them (to cancel the
 * job later), and a delay is turned into a due time by this JVM's clock at the call. See
 * docs/SPRING-TRANSACTIONS.md for the exact guarantee. Without an outbox for the transaction the
 * call fails with {@link OutboxUnavailableException} unless {@code delayq.outbox.enabled=false}
 * chose after-commit-only scheduling.
 *
 * <p>Thread-safe; the auto-configuration makes one.
 *
 * @since 0.3.0
 */
public final class DelayqTemplate {
  private final Delayq delayq;
  private final PayloadConverter converter;
  private final TransactionalWrites inTransaction;

  /**
   * A template that refuses writes inside a transaction (there is no outbox to give them).
   * Applications on Spring Boot get an auto-configured one with the outbox instead.
   */
  public DelayqTemplate(Delayq delayq, PayloadConverter converter) {
    this(delayq, converter, new RefusingWrites("this DelayqTemplate was made without an outbox"));
  }

  /**
   * A template whose writes inside a transaction go to {@code inTransaction}; used by the
   * auto-configuration, whose implementations are internal and may change.
   */
  public DelayqTemplate(Delayq delayq, PayloadConverter converter, TransactionalWrites inTransaction) {
    this.delayq = Objects.requireNonNull(delayq, "delayq");
    this.converter = Objects.requireNonNull(converter, "converter");
    this.inTransaction = Objects.requireNonNull(inTransaction, "inTransaction");
  }

  /**
   * Schedules {@code payload} to run after {@code delay}, with a generated id.
   *
   * @return the job's id
   */
  public String schedule(String queue, Object payload, Duration delay) {
    return schedule(queue, payload, delay, JobOptions.defaults());
  }

  /**
   * Schedules {@code payload} to run after {@code delay}.
   *
   * @return the job's id: the one in {@code options}, or a generated one
   * @throws io.delayq.JobActiveException outside a transaction, when the request replaces a job a
   *     worker holds now
   * @throws PayloadConversionException when the payload cannot be written
   */
  public String schedule(String queue, Object payload, Duration delay, JobOptions options) {
    Objects.requireNonNull(delay, "delay");
    JobRequest request = request(payload, options).withDelay(delay);
    if (inTransaction()) {
      return inTransaction.schedule(checkQueue(queue), request, System.currentTimeMillis() + Rules.delayMillis(delay));
    }
    return delayq.queue(queue).schedule(request).id();
  }

  /** Schedules {@code payload} to run at {@code runAt} (one in the past means now), with a generated id. */
  public String scheduleAt(String queue, Object payload, Instant runAt) {
    return scheduleAt(queue, payload, runAt, JobOptions.defaults());
  }

  /** As {@link #schedule(String, Object, Duration, JobOptions)}, at an instant. */
  public String scheduleAt(String queue, Object payload, Instant runAt, JobOptions options) {
    Objects.requireNonNull(runAt, "runAt");
    JobRequest request = request(payload, options).withRunAt(runAt);
    if (inTransaction()) {
      return inTransaction.schedule(checkQueue(queue), request, Rules.runAtMillis(runAt));
    }
    return delayq.queue(queue).schedule(request).id();
  }

  /**
   * Cancels a scheduled job.
   *
   * <p>Inside a transaction the cancel is applied when the transaction commits (and never if it
   * rolls back); the answer is given now: a job still in the outbox is removed from it, and
   * otherwise Redis is asked whether it holds a scheduled job with this id.
   *
   * @return whether there was a scheduled job with this id to cancel
   * @throws io.delayq.JobActiveException when a worker holds the job now
   */
  public boolean cancel(String queue, String id) {
    Objects.requireNonNull(id, "id");
    if (inTransaction()) {
      return inTransaction.cancel(checkQueue(queue), Rules.checkJobId(id));
    }
    return delayq.queue(queue).cancel(id);
  }

  /**
   * Moves a scheduled job to run after {@code delay}, keeping its payload.
   *
   * @return the new due time
   * @throws io.delayq.JobNotFoundException when there is no scheduled job with this id
   * @throws io.delayq.JobActiveException when a worker holds the job now
   */
  public Instant reschedule(String queue, String id, Duration delay) {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(delay, "delay");
    if (inTransaction()) {
      long dueMs = System.currentTimeMillis() + Rules.delayMillis(delay);
      return inTransaction.reschedule(checkQueue(queue), Rules.checkJobId(id), dueMs);
    }
    return delayq.queue(queue).reschedule(id, delay).runAt();
  }

  /** As {@link #reschedule(String, String, Duration)}, to an instant (one in the past means now). */
  public Instant reschedule(String queue, String id, Instant runAt) {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(runAt, "runAt");
    if (inTransaction()) {
      return inTransaction.reschedule(checkQueue(queue), Rules.checkJobId(id), Rules.runAtMillis(runAt));
    }
    return delayq.queue(queue).reschedule(id, runAt).runAt();
  }

  /**
   * The job with this id as Redis holds it now, in whatever state. A job scheduled in a
   * transaction that has not committed yet is not there.
   */
  public Optional<JobInfo> get(String queue, String id) {
    // why: a lookup reads only; it does not create the queue it asks about
    return delayq.existingQueue(queue).flatMap(q -> q.get(id));
  }

  /**
   * A job's payload as {@code type}, read by the {@link PayloadConverter}: JSON into the type,
   * text as a {@link String}, bytes as they are.
   *
   * @throws PayloadConversionException when the payload is not a {@code type}
   */
  @SuppressWarnings("unchecked")
  public <T> T payload(JobInfo job, Class<T> type) {
    return (T) payload(job, (Type) type);
  }

  /** As {@link #payload(JobInfo, Class)}, for a generic type such as {@code List<Order>}. */
  public Object payload(JobInfo job, Type type) {
    Objects.requireNonNull(job, "job");
    return converter.read(job.payload(), job.payloadIsJson(), type);
  }

  private JobRequest request(Object payload, JobOptions options) {
    Objects.requireNonNull(options, "options");
    Payload written = converter.write(payload);
    return new JobRequest(
        options.id(), written.bytes(), null, null, options.maxAttempts(), options.onDuplicate(), written.json());
  }

  private static boolean inTransaction() {
    return TransactionSynchronizationManager.isActualTransactionActive();
  }

  private static String checkQueue(String queue) {
    // why: outside a transaction the core checks the name; inside, the write waits for the
    // commit, and a bad name must fail now, in the caller's transaction, not in the relay
    return Rules.checkQueueName(queue);
  }
}
