package io.delayq;

/**
 * No schedule with that name exists on the queue (it was never stored, or was removed).
 *
 * @since 0.4.0
 */
public final class ScheduleNotFoundException extends DelayqException {
  private static final long serialVersionUID = 1L;
  private final String queue;
  private final String name;

  public ScheduleNotFoundException(String queue, String name) {
    super("queue '" + queue + "' has no schedule named '" + name + "'; list them with schedules().list()");
    this.queue = queue;
    this.name = name;
  }

  public String queue() {
    return queue;
  }

  public String name() {
    return name;
  }
}
