package io.delayq.spring.internal.listener;

import io.delayq.JobHandler;
import io.delayq.LeasedJob;
import io.delayq.NonRetryableJobException;
import io.delayq.spring.PayloadConversionException;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The handler of a queue that carries schedules: an occurrence of a schedule declared by a
 * {@code @DelayqScheduled} method of this application runs that method, every other job the
 * queue's listener. On a queue without a listener, any other job fails its attempt: it is retried
 * after the backoff (an occurrence of a schedule that another version of the application declares
 * may then be claimed by an instance that has its method) and goes to the dead-letter set with the
 * reason once its attempts are spent.
 *
 * <p>The workers are the listener's, and so are their non-retryable exception types; those are
 * meant for the listener's jobs, so an occurrence whose method throws one of them is retried up
 * to its own {@code maxAttempts} all the same.
 */
final class OccurrenceRouter implements JobHandler {
  /**
   * {@code <name>@<ISO instant>}, with {@code ~<n>} on a queue of several partitions, or {@code
   * <name>@run-now:<id>}: an id of another shape, or a name no method declares, is not an
   * occurrence this router knows, though the id may hold an {@code @}.
   */
  private static final Pattern OCCURRENCE = Pattern.compile(
      "([A-Za-z0-9._:\\-]{1,128})@(?:[+-]?\\d{4,}-\\d\\d-\\d\\dT[0-9:.]+Z(?:~\\d+)?|run-now:.+)");

  private final String queue;
  private final Map<String, JobHandler> bySchedule;
  /** The queue's listener, or {@code null}. */
  private final JobHandler others;
  /** The types the workers do not retry because the listener says so. */
  private final Set<Class<? extends Throwable>> listenersNonRetryable;

  OccurrenceRouter(String queue, Map<String, JobHandler> bySchedule, JobHandler others,
      Set<Class<? extends Throwable>> workersNonRetryable) {
    this.queue = queue;
    this.bySchedule = Map.copyOf(bySchedule);
    this.others = others;
    this.listenersNonRetryable = workersNonRetryable.stream()
        .filter(type -> type != PayloadConversionException.class)
        .collect(java.util.stream.Collectors.toUnmodifiableSet());
  }

  /** The schedule name in an occurrence's job id, or {@code null} when the id is not one. */
  static String scheduleOf(String jobId) {
    Matcher m = OCCURRENCE.matcher(jobId);
    return m.matches() ? m.group(1) : null;
  }

  @Override
  public void handle(LeasedJob job) throws Exception {
    String schedule = scheduleOf(job.id());
    JobHandler method = schedule == null ? null : bySchedule.get(schedule);
    if (method != null) {
      runOccurrence(method, job);
    } else if (others != null) {
      others.handle(job);
    } else {
      throw new IllegalStateException("job '" + job.id() + "' of queue '" + queue + "' has no handler in this"
          + " application: " + (schedule == null ? "it is not an occurrence of a schedule" : "schedule '" + schedule
          + "' has no @DelayqScheduled method here") + ", and the queue has no @DelayqListener; this application"
          + " runs the schedules " + new java.util.TreeSet<>(bySchedule.keySet()) + " on it. Give the queue a"
          + " @DelayqListener, or remove the schedule (Schedules.remove) if no version of the application declares"
          + " it any more");
    }
  }

  private void runOccurrence(JobHandler method, LeasedJob job) throws Exception {
    try {
      method.handle(job);
    } catch (Exception e) {
      if (e instanceof NonRetryableJobException || e instanceof PayloadConversionException) {
        throw e;
      }
      for (Class<? extends Throwable> type : listenersNonRetryable) {
        if (type.isInstance(e)) {
          // why: the workers match the type itself, so only another type gets the retry
          throw new RetriedOccurrenceFailure(type, e);
        }
      }
      throw e;
    }
  }

  /** A failure of a scheduled method of a type the queue's listener does not retry; retried here. */
  static final class RetriedOccurrenceFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    RetriedOccurrenceFailure(Class<? extends Throwable> type, Exception failure) {
      super("retried as its @DelayqScheduled method's maxAttempts allow, though the queue's @DelayqListener does not"
          + " retry " + type.getSimpleName(), failure);
    }
  }
}
