package io.delayq.spring.autoconfigure;

import io.delayq.DelayqException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;

/**
 * Turns a failed start of the delayq client into a description and the property to fix, instead
 * of a stack trace. A {@link DelayqException} from a {@code Delayq} bean the application built
 * itself gets its message and a pointer at that bean.
 */
final class DelayqFailureAnalyzer implements FailureAnalyzer {

  @Override
  public FailureAnalysis analyze(Throwable failure) {
    DelayqStartupException startup = find(failure, DelayqStartupException.class);
    if (startup != null) {
      return new FailureAnalysis(startup.description(), startup.action(), startup);
    }
    DelayqException delayq = find(failure, DelayqException.class);
    if (delayq != null) {
      return new FailureAnalysis(
          "The delayq client could not start: " + delayq.getMessage(),
          "Check the Redis settings of the application's own Delayq bean, or remove that bean to have"
              + " one made from delayq.redis.url or spring.data.redis.*.",
          delayq);
    }
    return null;
  }

  private static <T extends Throwable> T find(Throwable failure, Class<T> type) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (type.isInstance(t)) {
        return type.cast(t);
      }
    }
    return null;
  }
}
