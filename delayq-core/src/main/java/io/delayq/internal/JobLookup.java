package io.delayq.internal;

import io.delayq.JobInfo;
import io.delayq.JobState;
import io.delayq.ScheduledJob;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** The by-id operations: look a job up, cancel it, move it. Each is one script, O(log N). */
final class JobLookup {
  private final QueueContext queue;

  JobLookup(QueueContext queue) {
    this.queue = queue;
  }

  Optional<JobInfo> get(String id) {
    Rules.checkJobId(id);
    queue.checkOpen("get");
    List<Object> reply = queue.await(queue.<List<Object>>run(queue.client.scripts(), Script.INSPECT, partitionOf(id), Keys.bytes(id)), id);
    if (reply == null || reply.isEmpty()) {
      return Optional.empty();
    }
    Instant at = Instant.ofEpochMilli((Long) reply.get(1));
    int attempts = ((Long) reply.get(2)).intValue();
    JobRecord record = JobRecord.decode((byte[]) reply.get(3));
    String error = reply.size() > 4 && reply.get(4) != null ? QueueContext.text(reply.get(4)) : null;
    JobState state =
        switch (QueueContext.text(reply.get(0))) {
          case "s" -> JobState.SCHEDULED;
          case "a" -> JobState.ACTIVE;
          case "x" -> JobState.EXPIRED;
          default -> JobState.DEAD;
        };
    boolean held = state == JobState.ACTIVE || state == JobState.EXPIRED;
    FencingTokens.StoredLease lease =
        held && reply.size() > 5 && reply.get(5) != null ? FencingTokens.parseLease(QueueContext.text(reply.get(5))) : null;
    return Optional.of(
        new JobInfo(
            id,
            state,
            state == JobState.SCHEDULED ? at : null,
            held ? at : null,
            state == JobState.DEAD ? at : null,
            attempts,
            record.maxAttempts(),
            Instant.ofEpochMilli(record.createdMillis()),
            record.payload(),
            error,
            record.json(),
            lease == null ? 0 : lease.token(),
            lease == null ? null : lease.holder()));
  }

  boolean cancel(String id) {
    Rules.checkJobId(id);
    queue.checkOpen("cancel");
    Long removed = queue.await(queue.<Long>run(queue.client.scripts(), Script.CANCEL, partitionOf(id), Keys.bytes(id)), id);
    return removed == 1L;
  }

  ScheduledJob reschedule(String id, String mode, long when) {
    Rules.checkJobId(id);
    queue.checkOpen("reschedule");
    Long due =
        queue.await(
            queue.<Long>run(
                queue.client.scripts(), Script.RESCHEDULE, partitionOf(id), Keys.bytes(id), Keys.bytes(mode), QueueContext.number(when)),
            id);
    return new ScheduledJob(id, Instant.ofEpochMilli(due), ScheduledJob.Outcome.REPLACED);
  }

  private int partitionOf(String id) {
    return queue.partitionOf(id);
  }
}
