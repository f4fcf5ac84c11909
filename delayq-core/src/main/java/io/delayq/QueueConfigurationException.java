package io.delayq;

/**
 * A queue's stored settings conflict with what the caller asked for, or the Redis server is set up
 * in a way that could lose jobs (an evicting {@code maxmemory-policy}).
 *
 * @since 0.1.0
 */
public final class QueueConfigurationException extends DelayqException {
  private static final long serialVersionUID = 1L;

  public QueueConfigurationException(String message) {
    super(message);
  }
}
