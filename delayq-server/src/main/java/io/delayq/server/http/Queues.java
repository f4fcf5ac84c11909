package io.delayq.server.http;

import io.delayq.Delayq;
import io.delayq.JobQueue;
import io.delayq.JobRequest;
import io.delayq.QueueDefaults;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

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

  /**
   * Schedules and settings changes of a queue take one of these shared, its delete exclusively:
   * a schedule sent while the queue is deleted lands before the delete (and is deleted) or after
   * it (in the queue made anew), never in a partition the delete has already passed, where no
   * call could reach it. Striped by name, so that the locks cost nothing per queue.
   */
  private final ReentrantReadWriteLock[] writeLocks = new ReentrantReadWriteLock[1024];

  /** A call made under a queue's lock. */
  @FunctionalInterface
  interface Locked<T> {
    T call() throws Exception;
  }

  Queues(Delayq delayq) {
    for (int i = 0; i < writeLocks.length; i++) {
      writeLocks[i] = new ReentrantReadWriteLock();
    }
    this.delayq = delayq;
  }

  /** Runs a schedule or settings change of queue {@code name}, never while it is being deleted. */
  <T> T writing(String name, Locked<T> call) throws Exception {
    return under(lockOf(name).readLock(), call);
  }

  /** Runs the delete of queue {@code name} once the schedules in flight to it are done, and alone. */
  <T> T deleting(String name, Locked<T> call) throws Exception {
    return under(lockOf(name).writeLock(), call);
  }

  private static <T> T under(Lock lock, Locked<T> call) throws Exception {
    lock.lock();
    try {
      return call.call();
    } finally {
      lock.unlock();
    }
  }

  private ReentrantReadWriteLock lockOf(String name) {
    return writeLocks[Math.floorMod(name.hashCode(), writeLocks.length)];
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
