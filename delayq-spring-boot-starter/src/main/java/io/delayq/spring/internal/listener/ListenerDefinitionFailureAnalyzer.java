package io.delayq.spring.internal.listener;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports a bad {@code @DelayqListener} as Spring Boot reports a bad setting: what, and what to do. */
final class ListenerDefinitionFailureAnalyzer extends AbstractFailureAnalyzer<ListenerDefinitionException> {
  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, ListenerDefinitionException cause) {
    return new FailureAnalysis(cause.description(), cause.action(), cause);
  }
}
