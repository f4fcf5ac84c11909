package io.delayq;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * One process running delayq workers or forwarders right now, as its last heartbeat in Redis says.
 * Listed by {@link Delayq#workerProcesses()}; a process that stops heartbeating (it crashed, or
 * lost Redis) drops out of the listing once its entry expires, three heartbeat intervals after its
 * last one.
 *
 * @param id the process's identity: random, made when its {@link Delayq} client was built, as in
 *     {@link Delayq#processId()} and {@link JobInfo#holder()}
 * @param host the host name the process reported
 * @param pid the operating system's process id, -1 when unknown
 * @param version the delayq version the process runs, {@code "unknown"} when it could not tell
 * @param startedAt when its client was built
 * @param lastSeen when it last wrote its heartbeat, by the Redis clock
 * @param queues what it works on now, one entry per queue, sorted by queue name
 * @since 0.4.0
 */
public record WorkerProcess(
    String id, String host, long pid, String version, Instant startedAt, Instant lastSeen, List<QueueWork> queues) {

  public WorkerProcess {
    Objects.requireNonNull(id, "id");
    queues = List.copyOf(queues);
  }

  /**
   * The work of one process on one queue.
   *
   * @param queue the queue's name
   * @param concurrency handlers (or forwarding slots) the process may run at once on it, summed
   *     over its worker pools of that queue
   * @param inFlight jobs it holds right now: delivered and not yet settled
   * @since 0.4.0
   */
  public record QueueWork(String queue, int concurrency, int inFlight) {
    public QueueWork {
      Objects.requireNonNull(queue, "queue");
    }
  }
}
