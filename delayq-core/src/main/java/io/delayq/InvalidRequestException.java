package io.delayq;

/**
 * A caller passed a value that breaks a rule: a bad queue name, an over-long id, a payload over the
 * limit, a delay that overflows. Nothing was written to Redis.
 *
 * @since 0.1.0
 */
public final class InvalidRequestException extends DelayqException {
  private static final long serialVersionUID = 1L;
  private final String field;

  public InvalidRequestException(String field, String message) {
    super(field + ": " + message);
    this.field = field;
  }

  /** The name of the argument or setting that was wrong, e.g. {@code "id"} or {@code "payload"}. */
  public String field() {
    return field;
  }
}
