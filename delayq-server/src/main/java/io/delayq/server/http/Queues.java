package io.delayq.server.http;

import io.delayq.Delayq;
import io.delayq.JobQueue;
import io.delayq.JobRequest;

/** Finds the queue a request names: reads never create one, writes do. */
final class Queues {
  private final Delayq delayq;

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
