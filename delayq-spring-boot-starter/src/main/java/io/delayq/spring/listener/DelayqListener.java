package io.delayq.spring.listener;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method for every due job of a queue. The method of a singleton bean takes,
 * in any order, at most one payload parameter and, if it wants it, the {@link io.delayq.LeasedJob}
 * being run; it returns {@code void}:
 *
 * <pre>{@code
 * @DelayqListener(queue = "${orders.cancel-queue}", concurrency = "${orders.concurrency:8}")
 * void cancelIfUnpaid(Order order, LeasedJob job) { ... }
 * }</pre>
 *
 * <p>The payload parameter may be a {@code String} (UTF-8 text), a {@code byte[]} (as scheduled),
 * or any type the application's {@link io.delayq.spring.PayloadConverter} reads from JSON,
 * generic ones included ({@code List<Order>}, or a type variable of a generic bean resolved from
 * the bean's declared type). The {@code LeasedJob} gives the job's id, attempt, due time and
 * token, and {@link io.delayq.LeasedJob#extendLease} keeps a long-running job from being
 * delivered again.
 *
 * <p>Returning acks the job. Throwing fails the attempt: the job is retried after the backoff
 * until its attempts are spent, then goes to the dead-letter set. An exception of a {@link
 * #nonRetryable()} type, an {@link io.delayq.NonRetryableJobException}, or a payload that cannot be
 * read as the parameter's type ({@link io.delayq.spring.PayloadConversionException}) sends the job
 * to the dead-letter set at once, its error recorded.
 *
 * <p>Every {@code String} attribute takes {@code ${…}} placeholders, resolved through the
 * {@code Environment}, and {@code #{…}} expressions; an empty attribute takes the {@code
 * delayq.listener.*} property of the same name. Durations are written as Spring Boot writes them:
 * {@code 30s}, {@code 500ms}, {@code 10m} or {@code PT30S}. Everything is checked when the
 * application starts: a wrong signature, a payload type the converter cannot read, a bad value or
 * a second listener on the same queue fails the start, naming the bean and the method.
 *
 * <p>Listeners start once the application context is refreshed and stop before the delayq client
 * closes; see {@link DelayqListenerRegistry} to stop and start them at run time.
 *
 * @since 0.3.0
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface DelayqListener {

  /** The queue to take jobs from (1 to 128 letters, digits, {@code .}, {@code _}, {@code -}, {@code :}). */
  String queue();

  /**
   * The listener's id in the {@link DelayqListenerRegistry}; the queue name when empty. Ids are
   * unique in the application.
   */
  String id() default "";

  /** Jobs run at once (1 to 10000); {@code delayq.listener.concurrency} when empty. */
  String concurrency() default "";

  /**
   * How long a delivered job belongs to this listener before it is delivered again (100 ms to 1
   * day); {@code delayq.listener.lease} when empty. A handler that may run longer extends it with
   * {@link io.delayq.LeasedJob#extendLease}, or has it kept with {@link #keepLeaseWhileRunning()}.
   */
  String lease() default "";

  /**
   * Whether the workers extend a job's lease while the method runs ({@code true} or {@code
   * false}); {@code delayq.listener.keep-lease-while-running} when empty. With it on, the lease
   * bounds how long a crashed instance holds a job, not how long the method may take: a method
   * that outlives its lease is not delivered again while it still runs, and one that never returns
   * holds its job until the listener stops. Off, a job whose method outlives the lease is delivered
   * again (to this or another instance), as a hung one should be. On a queue that also carries
   * {@code @DelayqScheduled} methods it is always on, for the listener's jobs too.
   *
   * @since 0.4.0
   */
  String keepLeaseWhileRunning() default "";

  /**
   * A cap on attempts, applied when an attempt fails: a failure on this attempt or a later one
   * sends the job to the dead-letter set even when the job itself allows more. The job's own
   * {@code maxAttempts}, set when it was scheduled, still applies when it is lower. Empty means
   * no cap: the job's own count alone decides. {@link io.delayq.LeasedJob#maxAttempts()} reports
   * the job's own count.
   */
  String maxAttempts() default "";

  /** How long a failed job waits before its next attempt; each part defaults to {@code delayq.listener.backoff.*}. */
  Backoff backoff() default @Backoff;

  /**
   * Exception types (and their subtypes) that are not retried: the job goes to the dead-letter set
   * on the attempt that threw one. Matched against the exception the method throws, not its causes.
   */
  Class<? extends Throwable>[] nonRetryable() default {};

  /**
   * Whether the listener starts with the application ({@code true} or {@code false}); {@code
   * delayq.listener.auto-startup} when empty. One that does not is started through the {@link
   * DelayqListenerRegistry}.
   */
  String autoStartup() default "";

  /**
   * The wait before attempt {@code n + 1}: {@code initial × multiplier^(n-1)}, capped at {@code
   * max}, spread by ±{@code jitter} (a fraction from 0 to 1) so that jobs that failed together do
   * not retry together.
   */
  @Target({})
  @Retention(RetentionPolicy.RUNTIME)
  @Documented
  @interface Backoff {
    /** The wait after the first failure, e.g. {@code 1s}. */
    String initial() default "";

    /** Growth per failed attempt, at least 1, e.g. {@code 2}. */
    String multiplier() default "";

    /** The longest wait, e.g. {@code 10m}. */
    String max() default "";

    /** Random spread, from 0 (none) to 1, e.g. {@code 0.2}. */
    String jitter() default "";
  }
}
