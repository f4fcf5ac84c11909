package io.delayq.server.http;

import io.delayq.Delayq;
import io.delayq.JobQueue;
import io.delayq.JobRequest;
import io.delayq.QueueDefaults;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Finds the queue a request names: reads never create one, writes do. */
final class Queues {
  /**
   * How long a queue's stored defaults are reused before they are read again. A schedule or claim
   * that leaves maxAttempts or leaseMs out then costs no extra round trip; a change made through
   * another server shows here within this time.
   */
  static final Duration DEFAULTS_TTL = Duration.ofSeconds(1);

  private final Delayq delayq;
  private final Map<String, Remembered> defaults = new ConcurrentHashMap<>();

  private record Remembered(QueueDefaults defaults, long readAtNanos) {}

  Queues(Delayq delayq) {
    this.delayq = delayq;
  }

  /** The queue, or a 404 when it has never been used; a bad name is a 400. */
  JobQueue existing(String name) {
    return delayq.existingQueue(name).orElseThrow(() -> ApiException.unknownQueue(name));
  }

  /** The queue, created with one partition when new. */
  JobQueue create(String name) {
    return delayq.queue(name);
  }

  /** The queue's stored defaults, read at most once per {@link #DEFAULTS_TTL}. */
  QueueDefaults defaults(JobQueue queue) {
    long now = System.nanoTime();
    Remembered known = defaults.get(queue.name());
    if (known != null && now - known.readAtNanos() < DEFAULTS_TTL.toNanos()) {
      return known.defaults();
    }
    QueueDefaults read = queue.admin().defaults();
    if (defaults.size() < 10_000) {
      defaults.put(queue.name(), new Remembered(read, now));
    }
    return read;
  }

  /** Stores new defaults and uses them here at once. */
  QueueDefaults setDefaults(JobQueue queue, QueueDefaults changed) {
    QueueDefaults stored = queue.admin().setDefaults(changed);
    defaults.put(queue.name(), new Remembered(stored, System.nanoTime()));
    return stored;
  }

  /** Forgets what is remembered of a queue that was deleted, or that a delete failed on. */
  void forget(String name) {
    defaults.remove(name);
  }

  Delayq delayq() {
    return delayq;
  }

  /**
   * Checks a job id from the path by the core's own rule (1 to 256 UTF-8 bytes, printable), before
   * the queue is looked up, so a bad id is a 400 whether or not the queue exists.
   */
  static String checkId(String id) {
    JobRequest.of(new byte[0]).withId(id);
    return id;
  }
}
