package io.delayq.server.web;

import io.delayq.WorkerProcess;
import io.delayq.server.http.PathCodec;
import java.time.Instant;
import java.util.List;

/**
 * One row of the Workers page: a live worker process as people read it.
 *
 * @param id the process's identity
 * @param host the host it reported
 * @param pid its process id, or {@code —} when unknown
 * @param version the delayq version it runs
 * @param started when its client was built, in UTC
 * @param startedAgo the same, as {@code 2 h ago}
 * @param lastSeen its last heartbeat, in UTC
 * @param lastSeenAgo the same, as {@code 3 s ago}
 * @param queues what it works on, by queue name
 */
public record WorkerRow(
    String id, String host, String pid, String version, String started, String startedAgo, String lastSeen,
    String lastSeenAgo, List<Work> queues) {

  /**
   * A process's work on one queue.
   *
   * @param queue the queue's name
   * @param concurrency handlers it may run at once there
   * @param inFlight jobs it holds now
   */
  public record Work(String queue, int concurrency, int inFlight) {
    /** The queue's page, relative to the dashboard's prefix. */
    public String queuePath() {
      return "/queues/" + PathCodec.encodeSegment(queue);
    }
  }

  public WorkerRow {
    queues = List.copyOf(queues);
  }

  /** The row of {@code process}, its times told relative to {@code now}. */
  public static WorkerRow of(WorkerProcess process, Instant now) {
    return new WorkerRow(
        process.id(),
        process.host(),
        process.pid() < 0 ? "—" : Long.toString(process.pid()),
        process.version(),
        Display.utc(process.startedAt()),
        Display.ago(process.startedAt(), now),
        Display.utc(process.lastSeen()),
        Display.ago(process.lastSeen(), now),
        process.queues().stream().map(work -> new Work(work.queue(), work.concurrency(), work.inFlight())).toList());
  }

  /** Handlers it may run at once over all its queues. */
  public int totalConcurrency() {
    return queues.stream().mapToInt(Work::concurrency).sum();
  }

  /** Jobs it holds now over all its queues. */
  public int totalInFlight() {
    return queues.stream().mapToInt(Work::inFlight).sum();
  }
}
