package io.delayq.spring.internal.listener;

import io.delayq.JobHandler;
import io.delayq.LeasedJob;
import io.delayq.NonRetryableJobException;
import io.delayq.spring.PayloadConverter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Set;

/**
 * Runs one listener method for a job: binds its arguments, calls it, and passes what it throws on
 * to the workers, which retry it or, for the non-retryable types, bury it. A failure on or past the
 * listener's attempt cap is handed on as a {@link NonRetryableJobException} around it, so that it
 * goes to the dead-letter set with its own error as the cause.
 */
final class ListenerHandler implements JobHandler {
  private final Object bean;
  private final Method method;
  private final ListenerSignature signature;
  private final PayloadConverter converter;
  /** The listener's cap on attempts; 0 when it has none. */
  private final int attemptCap;
  private final Set<Class<? extends Throwable>> nonRetryable;

  ListenerHandler(Object bean, Method method, ListenerSignature signature, PayloadConverter converter, int attemptCap,
      Set<Class<? extends Throwable>> nonRetryable) {
    this.bean = bean;
    this.method = method;
    this.signature = signature;
    this.converter = converter;
    this.attemptCap = attemptCap;
    this.nonRetryable = nonRetryable;
  }

  @Override
  public void handle(LeasedJob job) throws Exception {
    // why: a payload that cannot be read fails here, before the method, as a PayloadConversionException,
    // which the workers are told not to retry
    Object[] args = signature.arguments(job, converter);
    try {
      method.invoke(bean, args);
    } catch (InvocationTargetException e) {
      Throwable failure = e.getCause();
      if (attemptCap > 0 && job.attempt() >= attemptCap && !job.isLastAttempt() && !isNonRetryable(failure)) {
        throw new NonRetryableJobException("attempt " + job.attempt() + " failed, and the listener allows at most "
            + attemptCap + " (the job itself allows " + job.maxAttempts() + ")", failure);
      }
      if (failure instanceof Exception exception) {
        throw exception;
      }
      throw (Error) failure;
    }
  }

  private boolean isNonRetryable(Throwable failure) {
    if (failure instanceof NonRetryableJobException) {
      return true;
    }
    for (Class<? extends Throwable> type : nonRetryable) {
      if (type.isInstance(failure)) {
        return true;
      }
    }
    return false;
  }
}
