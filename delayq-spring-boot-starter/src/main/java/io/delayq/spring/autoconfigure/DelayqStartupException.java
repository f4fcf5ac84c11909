package io.delayq.spring.autoconfigure;

/**
 * Why the {@code Delayq} client could not be made from the application's settings, said as {@link
 * DelayqFailureAnalyzer} shows it: what is wrong and which property to change.
 */
final class DelayqStartupException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final String action;

  DelayqStartupException(String description, String action, Throwable cause) {
    super(description, cause);
    this.action = action;
  }

  String description() {
    return getMessage();
  }

  String action() {
    return action;
  }
}
