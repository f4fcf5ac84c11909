package io.delayq.spring.schedule;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method at every occurrence of a recurring schedule, on whichever instance of
 * the application claims it (each occurrence runs once, however many instances run):
 *
 * <pre>{@code
 * @DelayqScheduled(queue = "digests", name = "daily-digest", cron = "0 9 * * *", zone = "Europe/Amsterdam")
 * void sendDigest() { ... }
 *
 * @DelayqScheduled(every = "${cleanup.every:5m}", misfire = "run-once")
 * void cleanUp(LeasedJob job) { ... }
 * }</pre>
 *
 * <p>Once the application context is refreshed, the starter stores the schedule in Redis ({@link
 * io.delayq.Schedules#set}, left alone when the stored definition is the same) and runs the
 * method for each occurrence, an ordinary job of the queue whose id starts with the schedule's
 * name. The method of a singleton bean returns {@code void} and takes nothing, the {@link
 * io.delayq.LeasedJob}, the payload (converted as for a {@code @DelayqListener} method), or both.
 * Returning acks the occurrence; throwing fails its attempt, retried after the backoff of the
 * queue's {@code @DelayqListener} (or {@code delayq.listener.backoff.*} without one) until {@link
 * #maxAttempts()} attempts are spent; the listener's {@code nonRetryable} types and attempt cap
 * are for its own jobs and do not apply. A {@link io.delayq.NonRetryableJobException} sends the
 * occurrence to the dead-letter set at once.
 *
 * <p>An occurrence is leased like any job, for the queue's {@code @DelayqListener} lease (or
 * {@code delayq.listener.lease}), and the workers of a queue that carries scheduled methods extend
 * the lease while the method runs ({@link io.delayq.WorkerOptions#keepLeaseWhileRunning()}): a
 * method that takes longer than its lease runs once, and the lease bounds only how long a crashed
 * instance holds the occurrence. On a queue shared with a {@code @DelayqListener}, whose workers
 * run both, the listener's jobs keep their leases too, and the listener must start with the
 * application (a start fails otherwise).
 *
 * <p>The method is called through the bean's proxy, if it has one, so that its advice runs; a
 * method the proxy cannot reach (a JDK proxy without it on an interface, a {@code final} method of
 * a CGLIB proxy) fails the start.
 *
 * <p>A queue may carry several schedules and ordinary jobs: one set of workers per queue runs
 * each occurrence of a schedule this application declares here on its method, and every other
 * job on the queue's {@code @DelayqListener}; without one, any other job fails its attempt (see
 * docs/SPRING-BOOT.md, "Recurring schedules"). A schedule no longer declared is not removed
 * from Redis.
 *
 * <p>Every attribute takes {@code ${…}} placeholders and {@code #{…}} expressions. Durations are
 * written as Spring Boot writes them: {@code 30s}, {@code 5m}, {@code PT1H}. Everything is checked
 * when the application starts; a bad value fails the start naming the bean, the method and the
 * attribute.
 *
 * @since 0.4.0
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface DelayqScheduled {

  /**
   * The queue the occurrences go to; {@code delayq.schedules.default-queue} when empty. A value
   * given that resolves to nothing (a placeholder of an empty property) fails the start.
   */
  String queue() default "";

  /**
   * The schedule's name, unique within its queue (1 to 128 of {@code A-Z a-z 0-9 . _ : -});
   * {@code <bean name>.<method name>} when empty.
   */
  String name() default "";

  /** A cron expression (5 or 6 fields, or a macro such as {@code @daily}); give this or {@link #every()}. */
  String cron() default "";

  /** A fixed interval of elapsed time, from 1 second to 1000 days, e.g. {@code 5m}; give this or {@link #cron()}. */
  String every() default "";

  /** The time zone the cron expression is read in, e.g. {@code Europe/Amsterdam}; UTC when empty. */
  String zone() default "";

  /**
   * What happens to occurrences that could not run on time: {@code skip} (the default), {@code
   * run-once} or {@code run-up-to:<n>}.
   */
  String misfire() default "";

  /** How late an occurrence may start and still count as on time; 1 minute when empty. */
  String grace() default "";

  /** Whether an occurrence runs while the one before is still at work: {@code allow} (the default) or {@code skip}. */
  String overlap() default "";

  /** The UTF-8 text each occurrence carries; empty for none. At most one of this and {@link #jsonPayload()}. */
  String payload() default "";

  /** JSON text each occurrence carries, read into the method's payload parameter. */
  String jsonPayload() default "";

  /** How many times each occurrence is tried before it goes to the dead-letter set; 5 when empty. */
  String maxAttempts() default "";
}
