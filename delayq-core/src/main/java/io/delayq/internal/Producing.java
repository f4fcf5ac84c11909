package io.delayq.internal;

import io.delayq.DuplicatePolicy;
import io.delayq.InvalidRequestException;
import io.delayq.JobActiveException;
import io.delayq.JobRequest;
import io.delayq.NotReplicatedException;
import io.delayq.OutcomeUnknownException;
import io.delayq.RedisUnavailableException;
import io.delayq.ScheduledJob;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * Scheduling: requests checked and encoded up front, grouped by partition into batches of a
 * bounded size, pipelined, and for a durable schedule confirmed by replicas with {@code WAIT}.
 */
final class Producing {
  /** Jobs per schedule call: amortises the round trip and script start without holding Redis long. */
  private static final int JOBS_PER_CALL = 100;
  /** Payload bytes per schedule call, so that large payloads go in smaller batches. */
  private static final int BYTES_PER_CALL = 1 << 20;
  /** Schedule calls in flight at once: bounds client memory. */
  private static final int PIPELINE_WINDOW = 64;
  private static final byte[] MODE_DELAY = Keys.bytes("d");
  private static final byte[] MODE_ABSOLUTE = Keys.bytes("a");
  private static final byte[] POLICY_REPLACE = Keys.bytes("r");
  private static final byte[] POLICY_KEEP = Keys.bytes("k");

  private final QueueContext queue;
  private final DelayqClient client;

  Producing(QueueContext queue) {
    this.queue = queue;
    this.client = queue.client;
  }

  /**
   * Schedules under one {@code delayq.schedule} observation: whatever trace headers a tracer writes
   * into its carrier when it starts are stored with every job of the call.
   */
  List<ScheduledJob> scheduleAll(List<JobRequest> requests) {
    Objects.requireNonNull(requests, "requests");
    queue.checkOpen("schedule");
    Observations.Observed observed = client.observations().schedule(queue.name, requests.size());
    try {
      List<ScheduledJob> scheduled = scheduleAll(requests, observed);
      observed.stop(null);
      return scheduled;
    } catch (RuntimeException | Error e) {
      observed.stop(e);
      throw e;
    }
  }

  private List<ScheduledJob> scheduleAll(List<JobRequest> requests, Observations.Observed observed) {
    boolean single = requests.size() == 1;
    TraceHeaders trace = TraceHeaders.of(observed.headers());
    List<Prepared> prepared = new ArrayList<>(requests.size());
    for (int i = 0; i < requests.size(); i++) {
      JobRequest request = requests.get(i);
      if (request == null) {
        throw new InvalidRequestException("requests[" + i + "]", "is null");
      }
      try {
        prepared.add(prepare(i, request, trace));
      } catch (InvalidRequestException e) {
        throw single ? e : new InvalidRequestException("requests[" + i + "]." + e.field(), e.getMessage());
      }
    }
    if (single) {
      observed.jobId(prepared.get(0).id);
    }
    ScheduledJob[] results = new ScheduledJob[prepared.size()];
    List<Batch> inFlight = new ArrayList<>();
    Replication replication = new Replication();
    for (Batch batch : batches(prepared)) {
      batch.reply = send(batch);
      inFlight.add(batch);
      if (inFlight.size() >= PIPELINE_WINDOW) {
        collect(inFlight, results, replication);
      }
    }
    collect(inFlight, results, replication);
    List<String> refused = new ArrayList<>();
    int created = 0, replaced = 0, kept = 0;
    for (int i = 0; i < results.length; i++) {
      if (results[i] == null) {
        refused.add(prepared.get(i).id);
      } else {
        switch (results[i].outcome()) {
          case CREATED -> created++;
          case REPLACED -> replaced++;
          case KEPT -> kept++;
        }
      }
    }
    // why: before the exceptions below, which report jobs that were written all the same
    queue.meters().scheduled(created, replaced, kept);
    ClientSettings s = client.settings();
    if (!replication.unconfirmed.isEmpty()) {
      throw new NotReplicatedException(
          queue.name, s.replicasToWait(), replication.fewestConfirmed, replication.unconfirmed, s.idempotencyWindow());
    }
    if (!refused.isEmpty()) {
      throw new JobActiveException(
          queue.name,
          refused.get(0),
          "a worker holds this job now, so it cannot be replaced until that attempt ends"
              + (single
                  ? ""
                  : "; " + refused.size() + " of " + results.length + " requests were refused this way ("
                      + Rules.abbreviate(String.join(", ", refused)) + "), the others were scheduled"),
          single ? List.of() : Arrays.asList(results));
    }
    return List.of(results);
  }

  /** One request, checked and encoded, remembering its place in the caller's list. */
  private record Prepared(int index, String id, int partition, byte[][] args, int bytes) {}

  /** Requests for one partition sent in one script call. */
  private static final class Batch {
    final int partition;
    final List<Prepared> jobs = new ArrayList<>();
    int bytes;
    /** The connection it went on; for a durable schedule, the one to the partition's master. */
    ScriptRunner writer;
    CompletableFuture<List<Object>> reply;

    Batch(int partition) {
      this.partition = partition;
    }
  }

  /** What replicas confirmed of a durable schedule, and how many batches Redis has answered. */
  private static final class Replication {
    final List<String> unconfirmed = new ArrayList<>();
    int fewestConfirmed = Integer.MAX_VALUE;
    int answeredBatches;
  }

  /** Groups by partition, cut at {@link #JOBS_PER_CALL} jobs or {@link #BYTES_PER_CALL} bytes. */
  private List<Batch> batches(List<Prepared> prepared) {
    Batch[] open = new Batch[queue.partitionCount()];
    List<Batch> all = new ArrayList<>();
    for (Prepared job : prepared) {
      int p = job.partition;
      Batch batch = open[p];
      if (batch == null || batch.jobs.size() >= JOBS_PER_CALL || batch.bytes + job.bytes > BYTES_PER_CALL) {
        batch = new Batch(p);
        open[p] = batch;
        all.add(batch);
      }
      batch.jobs.add(job);
      batch.bytes += job.bytes;
    }
    return all;
  }

  private Prepared prepare(int index, JobRequest request, TraceHeaders trace) {
    Rules.checkPayloadSize(request.payload().length, client.settings().maxPayloadBytes());
    String id = request.id() != null ? request.id() : Ids.generate();
    boolean absolute = request.runAt() != null;
    long when =
        absolute
            ? Rules.runAtMillis(request.runAt())
            : request.delay() == null ? 0 : Rules.delayMillis(request.delay());
    boolean keep = request.onDuplicate() == DuplicatePolicy.KEEP;
    byte[] record =
        new JobRecord(request.maxAttempts(), System.currentTimeMillis(), keep, request.payload(), request.payloadIsJson(), trace)
            .encode();
    byte[][] args = {
      Keys.bytes(id),
      record,
      absolute ? MODE_ABSOLUTE : MODE_DELAY,
      QueueContext.number(when),
      keep ? POLICY_KEEP : POLICY_REPLACE
    };
    return new Prepared(index, id, queue.partitionOf(id), args, record.length + args[0].length + 32);
  }

  private CompletableFuture<List<Object>> send(Batch batch) {
    byte[][] args = new byte[5 * batch.jobs.size()][];
    int at = 0;
    for (Prepared job : batch.jobs) {
      System.arraycopy(job.args, 0, args, at, 5);
      at += 5;
    }
    batch.writer =
        durable() ? client.connector().writerFor(queue.partition(batch.partition).scheduled(), client.serverTime()) : client.scripts();
    return queue.run(batch.writer, Script.SCHEDULE, batch.partition, args);
  }

  private boolean durable() {
    return client.settings().replicasToWait() > 0;
  }

  /**
   * Waits for the batches in flight and files their answers; a refused job leaves a null. For a
   * durable schedule, first asks each master's connection to {@code WAIT} for the replicas, and
   * notes the jobs written on a connection whose replicas fell short.
   */
  private void collect(List<Batch> inFlight, ScheduledJob[] results, Replication replication) {
    List<List<Object>> replies = new ArrayList<>(inFlight.size());
    RuntimeException failure = null;
    int failed = 0;
    boolean allRefusedUnsent = true;
    for (Batch batch : inFlight) {
      try {
        replies.add(queue.await(batch.reply, batch.jobs.get(0).id));
        replication.answeredBatches++;
      } catch (RuntimeException e) {
        replies.add(null);
        failure = failure == null ? e : failure;
        allRefusedUnsent &= e instanceof RedisUnavailableException;
        failed++;
      }
    }
    if (failure != null) {
      if (durable()) {
        // why: a direct node connection does not follow MOVED; let the cluster map catch up
        client.connector().refreshTopology();
      }
      if (replication.answeredBatches == 0 && (allRefusedUnsent || failed == 1)) {
        throw failure;
      }
      // why: some batches may have been written and others not; "failed" would be untrue
      throw new OutcomeUnknownException(
          "queue '" + queue.name + "': " + failed + " of the schedule's batches failed (" + failure.getMessage()
              + ") and " + replication.answeredBatches + " were written, so some of these jobs may be scheduled"
              + " and some not. Schedule the same requests again with DuplicatePolicy.KEEP: the ones already"
              + " there are kept (a job that already ran is kept finished only if it was scheduled with KEEP"
              + " the first time)",
          failure);
    }
    if (durable()) {
      awaitReplicas(inFlight, replication);
    }
    for (int b = 0; b < inFlight.size(); b++) {
      Batch batch = inFlight.get(b);
      List<Object> reply = replies.get(b);
      for (int j = 0; j < batch.jobs.size(); j++) {
        long outcome = (Long) reply.get(2 * j);
        long due = (Long) reply.get(2 * j + 1);
        Prepared job = batch.jobs.get(j);
        results[job.index] =
            outcome < 0
                ? null
                : new ScheduledJob(
                    job.id,
                    due < 0 ? null : Instant.ofEpochMilli(due),
                    outcome == 1
                        ? ScheduledJob.Outcome.CREATED
                        : outcome == 2 ? ScheduledJob.Outcome.REPLACED : ScheduledJob.Outcome.KEPT);
      }
    }
    inFlight.clear();
  }

  private void awaitReplicas(List<Batch> inFlight, Replication replication) {
    // why: WAIT only after every reply is in. A script retried after NOSCRIPT writes later than
    // its first attempt, and a WAIT sent before that write would confirm nothing.
    ClientSettings s = client.settings();
    Map<ScriptRunner, CompletableFuture<Long>> waits = new IdentityHashMap<>();
    for (Batch batch : inFlight) {
      waits.computeIfAbsent(batch.writer, w -> w.waitForReplicas(s.replicasToWait(), s.replicaTimeout().toMillis()));
    }
    Map<ScriptRunner, Long> confirmed = new IdentityHashMap<>();
    for (Batch batch : inFlight) {
      long replicas =
          confirmed.computeIfAbsent(
              batch.writer, w -> client.await(waits.get(w), s.replicaTimeout(), queue.name, batch.jobs.get(0).id));
      if (replicas < s.replicasToWait()) {
        replication.fewestConfirmed = (int) Math.min(replication.fewestConfirmed, replicas);
        for (Prepared job : batch.jobs) {
          replication.unconfirmed.add(job.id);
        }
      }
    }
  }
}
