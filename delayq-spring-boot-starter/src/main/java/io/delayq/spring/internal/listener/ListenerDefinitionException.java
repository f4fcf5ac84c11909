package io.delayq.spring.internal.listener;

import org.springframework.beans.factory.BeanInitializationException;

/** A {@code @DelayqListener} method that cannot run as declared; fails the application's start. */
public final class ListenerDefinitionException extends BeanInitializationException {
  private static final long serialVersionUID = 1L;

  static final String ACCEPTED_SIGNATURES = "Accepted signatures: a void method of a singleton bean taking, in any"
      + " order, at most one payload parameter (String, byte[], or a type the PayloadConverter reads from JSON, such"
      + " as Order or List<Order>) and at most one io.delayq.LeasedJob; for example void on(Order order),"
      + " void on(LeasedJob job, List<Order> orders), void on(String text), void on(byte[] payload)";

  ListenerDefinitionException(String listener, String problem) {
    super("@DelayqListener " + listener + ": " + problem);
  }

  /** A problem with the method's parameters or return type: the message adds the accepted signatures. */
  static ListenerDefinitionException signature(String listener, String problem) {
    return new ListenerDefinitionException(listener, problem + ". " + ACCEPTED_SIGNATURES);
  }
}
