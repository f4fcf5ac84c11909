package io.delayq;

/**
 * A queue could not be deleted because workers hold some of its jobs right now. Nothing was
 * deleted, and claiming goes on as before, unless the queue was resumed while the delete ran and
 * workers claimed jobs meanwhile: then {@link #deletedJobs()} says how many jobs were deleted by
 * that time, and the queue stays paused.
 *
 * @since 0.2.0
 */
public final class QueueBusyException extends DelayqException {
  private static final long serialVersionUID = 1L;

  private final String queue;
  private final long heldJobs;
  private final long deletedJobs;

  public QueueBusyException(String queue, long heldJobs, long deletedJobs, String message) {
    super(message);
    this.queue = queue;
    this.heldJobs = heldJobs;
    this.deletedJobs = deletedJobs;
  }

  /** The queue that was to be deleted. */
  public String queue() {
    return queue;
  }

  /** How many of its jobs workers held under running leases when the delete looked. */
  public long heldJobs() {
    return heldJobs;
  }

  /** Jobs deleted before the delete stopped; 0 unless the queue was resumed while it ran. */
  public long deletedJobs() {
    return deletedJobs;
  }
}
