package io.delayq.spring.internal.listener;

import org.springframework.beans.factory.BeanInitializationException;

/**
 * A {@code @DelayqListener} or {@code @DelayqScheduled} method that cannot run as declared; fails
 * the application's start.
 */
public final class ListenerDefinitionException extends BeanInitializationException {
  private static final long serialVersionUID = 1L;

  static final String ACCEPTED_SIGNATURES = "Accepted signatures: a void method of a singleton bean taking, in any"
      + " order, at most one payload parameter (String, byte[], or a type the PayloadConverter reads from JSON, such"
      + " as Order or List<Order>) and at most one io.delayq.LeasedJob; for example void on(Order order),"
      + " void on(LeasedJob job, List<Order> orders), void on(String text), void on(byte[] payload)";
  private static final String FIX_THE_VALUE = "Change the annotation's attribute named above, or the property"
      + " its placeholder reads";

  private final String description;
  private final String action;

  private ListenerDefinitionException(String listener, String problem, String action, boolean actionInMessage) {
    super(subject(listener) + ": " + problem + (actionInMessage ? ". " + action : ""));
    this.description = subject(listener) + ": " + problem;
    this.action = action;
  }

  ListenerDefinitionException(String listener, String problem) {
    this(listener, problem, FIX_THE_VALUE, false);
  }

  /** A problem with the method's parameters or return type: the message adds the accepted signatures. */
  static ListenerDefinitionException signature(String listener, String problem) {
    return new ListenerDefinitionException(listener, problem, ACCEPTED_SIGNATURES, true);
  }

  // why: @DelayqScheduled methods go through the same checks; their descriptions start with their
  // own annotation, a listener's description with the bean's type
  private static String subject(String method) {
    return method.startsWith("@") ? method : "@DelayqListener " + method;
  }

  /** A problem whose way out is not to change an attribute: the message says what to do. */
  static ListenerDefinitionException withAction(String listener, String problem, String action) {
    return new ListenerDefinitionException(listener, problem, action, true);
  }

  /** What is wrong, naming the bean and the method. */
  public String description() {
    return description;
  }

  /** What to do about it. */
  public String action() {
    return action;
  }
}
