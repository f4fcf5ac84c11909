package io.delayq.internal;

import io.delayq.Backoff;
import io.delayq.DuplicatePolicy;
import io.delayq.JobActiveException;
import io.delayq.InvalidRequestException;
import io.delayq.JobHandler;
import io.delayq.JobInfo;
import io.delayq.JobQueue;
import io.delayq.JobRequest;
import io.delayq.JobState;
import io.delayq.LeaseExpiredException;
import io.delayq.LeasedJob;
import io.delayq.NotReplicatedException;
import io.delayq.QueueDefaults;
import io.delayq.QueueStats;
import io.delayq.ScheduledJob;
import io.delayq.WorkerOptions;
import io.delayq.Workers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/** A queue on Redis: each call is one script on the partition that owns the job's id. */
public final class RedisJobQueue implements JobQueue {
  /** Jobs per schedule call: amortises the round trip and script start without holding Redis long. */
  private static final int JOBS_PER_CALL = 100;
  /** Payload bytes per schedule call, so that large payloads go in smaller batches. */
  private static final int BYTES_PER_CALL = 1 << 20;
  /** Schedule calls in flight at once in {@link #scheduleAll}: bounds client memory. */
  private static final int PIPELINE_WINDOW = 64;
  private static final byte[] MODE_DELAY = Keys.bytes("d");
  private static final byte[] MODE_ABSOLUTE = Keys.bytes("a");
  private static final byte[] POLICY_REPLACE = Keys.bytes("r");
  private static final byte[] POLICY_KEEP = Keys.bytes("k");
  /** Expired leases recovered per claim call: keeps every claim's work bounded. */
  private static final int RECOVER_PER_CLAIM = 100;
  private static final int MAX_ERROR_CHARS = 2_000;

  private final DelayqClient client;
  private final String name;
  private final Keys.Partition[] partitions;
  private final byte[] wakeChannel;
  private final AtomicInteger claimCursor = new AtomicInteger();

  RedisJobQueue(DelayqClient client, String name, int partitionCount) {
    this.client = client;
    this.name = name;
    this.partitions = new Keys.Partition[partitionCount];
    for (int p = 0; p < partitionCount; p++) {
      partitions[p] = Keys.partition(name, p);
    }
    this.wakeChannel = Keys.bytes(Keys.wakeChannel(name));
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public int partitions() {
    return partitions.length;
  }

  Keys.Partition partition(int p) {
    return partitions[p];
  }

  private Keys.Partition partitionOf(String id) {
    return partitions[Ids.partitionOf(id, partitions.length)];
  }

  // ---- producing ----

  @Override
  public ScheduledJob schedule(JobRequest request) {
    Objects.requireNonNull(request, "request");
    return scheduleAll(List.of(request)).get(0);
  }

  @Override
  public List<ScheduledJob> scheduleAll(List<JobRequest> requests) {
    Objects.requireNonNull(requests, "requests");
    client.checkOpen("schedule on queue '" + name + "'");
    boolean single = requests.size() == 1;
    List<Prepared> prepared = new ArrayList<>(requests.size());
    for (int i = 0; i < requests.size(); i++) {
      JobRequest request = requests.get(i);
      if (request == null) {
        throw new InvalidRequestException("requests[" + i + "]", "is null");
      }
      try {
        prepared.add(prepare(i, request));
      } catch (InvalidRequestException e) {
        throw single ? e : new InvalidRequestException("requests[" + i + "]." + e.field(), e.getMessage());
      }
    }
    ScheduledJob[] results = new ScheduledJob[prepared.size()];
    List<Batch> inFlight = new ArrayList<>();
    List<String> unconfirmed = new ArrayList<>();
    int[] fewestConfirmed = {Integer.MAX_VALUE};
    for (Batch batch : batches(prepared)) {
      batch.reply = send(batch);
      inFlight.add(batch);
      if (inFlight.size() >= PIPELINE_WINDOW) {
        collect(inFlight, results, unconfirmed, fewestConfirmed);
      }
    }
    collect(inFlight, results, unconfirmed, fewestConfirmed);
    List<String> refused = new ArrayList<>();
    for (int i = 0; i < results.length; i++) {
      if (results[i] == null) {
        refused.add(prepared.get(i).id);
      }
    }
    if (!unconfirmed.isEmpty()) {
      throw new NotReplicatedException(
          name, client.settings().replicasToWait(), fewestConfirmed[0], unconfirmed);
    }
    if (!refused.isEmpty()) {
      throw new JobActiveException(
          name,
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
  private record Prepared(int index, String id, Keys.Partition partition, byte[][] args, int bytes) {}

  /** Requests for one partition sent in one script call. */
  private static final class Batch {
    final Keys.Partition partition;
    final List<Prepared> jobs = new ArrayList<>();
    int bytes;
    /** The connection it went on; for a durable schedule, the one to the partition's master. */
    ScriptRunner writer;
    CompletableFuture<List<Object>> reply;

    Batch(Keys.Partition partition) {
      this.partition = partition;
    }
  }

  /** Groups by partition, cut at {@link #JOBS_PER_CALL} jobs or {@link #BYTES_PER_CALL} bytes. */
  private List<Batch> batches(List<Prepared> prepared) {
    Batch[] open = new Batch[partitions.length];
    List<Batch> all = new ArrayList<>();
    for (Prepared job : prepared) {
      int p = job.partition.number();
      Batch batch = open[p];
      if (batch == null || batch.jobs.size() >= JOBS_PER_CALL || batch.bytes + job.bytes > BYTES_PER_CALL) {
        batch = new Batch(job.partition);
        open[p] = batch;
        all.add(batch);
      }
      batch.jobs.add(job);
      batch.bytes += job.bytes;
    }
    return all;
  }

  private Prepared prepare(int index, JobRequest request) {
    Rules.checkPayloadSize(request.payload().length, client.settings().maxPayloadBytes());
    String id = request.id() != null ? request.id() : Ids.generate();
    Keys.Partition p = partitionOf(id);
    boolean absolute = request.runAt() != null;
    long when =
        absolute
            ? Rules.runAtMillis(request.runAt())
            : request.delay() == null ? 0 : Rules.delayMillis(request.delay());
    byte[] record =
        new JobRecord(request.maxAttempts(), System.currentTimeMillis(), request.payload()).encode();
    byte[][] args = {
      Keys.bytes(id),
      record,
      absolute ? MODE_ABSOLUTE : MODE_DELAY,
      number(when),
      request.onDuplicate() == DuplicatePolicy.KEEP ? POLICY_KEEP : POLICY_REPLACE
    };
    return new Prepared(index, id, p, args, record.length + args[0].length + 32);
  }

  private CompletableFuture<List<Object>> send(Batch batch) {
    Keys.Partition p = batch.partition;
    byte[][] keys = {p.scheduled(), p.active(), p.dead(), p.jobs(), p.attempts(), p.errors()};
    byte[][] args = new byte[2 + 5 * batch.jobs.size()][];
    args[0] = wakeChannel;
    args[1] = number(p.number());
    int at = 2;
    for (Prepared job : batch.jobs) {
      System.arraycopy(job.args, 0, args, at, 5);
      at += 5;
    }
    batch.writer = durable() ? client.connector().writerFor(p.scheduled()) : client.scripts();
    return batch.writer.run(Script.SCHEDULE, keys, args);
  }

  private boolean durable() {
    return client.settings().replicasToWait() > 0;
  }

  /**
   * Waits for the batches in flight and files their answers; a refused job leaves a null. For a
   * durable schedule, first asks each master's connection to {@code WAIT} for the replicas, and
   * notes the jobs written on a connection whose replicas fell short.
   */
  private void collect(
      List<Batch> inFlight, ScheduledJob[] results, List<String> unconfirmed, int[] fewestConfirmed) {
    List<List<Object>> replies = new ArrayList<>(inFlight.size());
    for (Batch batch : inFlight) {
      try {
        replies.add(await(batch.reply, batch.jobs.get(0).id, 0));
      } catch (RuntimeException e) {
        if (durable()) {
          // why: a direct node connection does not follow MOVED; let the cluster map catch up
          client.connector().refreshTopology();
        }
        throw e;
      }
    }
    if (durable()) {
      // why: WAIT only after every reply is in. A script retried after NOSCRIPT writes later than
      // its first attempt, and a WAIT sent before that write would confirm nothing.
      ClientSettings s = client.settings();
      Map<ScriptRunner, CompletableFuture<Long>> waits = new IdentityHashMap<>();
      for (Batch batch : inFlight) {
        waits.computeIfAbsent(
            batch.writer, w -> w.waitForReplicas(s.replicasToWait(), s.replicaTimeout().toMillis()));
      }
      Map<ScriptRunner, Long> confirmed = new IdentityHashMap<>();
      for (Batch batch : inFlight) {
        long replicas =
            confirmed.computeIfAbsent(
                batch.writer, w -> client.await(waits.get(w), s.replicaTimeout(), name, batch.jobs.get(0).id));
        if (replicas < s.replicasToWait()) {
          fewestConfirmed[0] = (int) Math.min(fewestConfirmed[0], replicas);
          for (Prepared job : batch.jobs) {
            unconfirmed.add(job.id);
          }
        }
      }
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

  @Override
  public boolean cancel(String id) {
    Rules.checkJobId(id);
    client.checkOpen("cancel on queue '" + name + "'");
    Keys.Partition p = partitionOf(id);
    byte[][] keys = {p.scheduled(), p.active(), p.jobs(), p.attempts(), p.errors()};
    Long removed = await(client.scripts().<Long>run(Script.CANCEL, keys, Keys.bytes(id)), id, 0);
    return removed == 1L;
  }

  @Override
  public ScheduledJob reschedule(String id, Duration delay) {
    Objects.requireNonNull(delay, "delay");
    return reschedule(id, "d", Rules.delayMillis(delay));
  }

  @Override
  public ScheduledJob reschedule(String id, Instant runAt) {
    Objects.requireNonNull(runAt, "runAt");
    return reschedule(id, "a", Rules.runAtMillis(runAt));
  }

  private ScheduledJob reschedule(String id, String mode, long when) {
    Rules.checkJobId(id);
    client.checkOpen("reschedule on queue '" + name + "'");
    Keys.Partition p = partitionOf(id);
    byte[][] keys = {p.scheduled(), p.active()};
    Long due =
        await(
            client.scripts()
                .<Long>run(
                    Script.RESCHEDULE,
                    keys,
                    Keys.bytes(id),
                    Keys.bytes(mode),
                    number(when),
                    wakeChannel,
                    number(p.number())),
            id,
            0);
    return new ScheduledJob(id, Instant.ofEpochMilli(due), ScheduledJob.Outcome.REPLACED);
  }

  // ---- reading ----

  @Override
  public Optional<JobInfo> get(String id) {
    Rules.checkJobId(id);
    client.checkOpen("get on queue '" + name + "'");
    Keys.Partition p = partitionOf(id);
    byte[][] keys = {p.scheduled(), p.active(), p.dead(), p.jobs(), p.attempts(), p.errors()};
    List<Object> reply = await(client.scripts().<List<Object>>run(Script.INSPECT, keys, Keys.bytes(id)), id, 0);
    if (reply == null || reply.isEmpty()) {
      return Optional.empty();
    }
    String state = text(reply.get(0));
    Instant at = Instant.ofEpochMilli((Long) reply.get(1));
    int attempts = ((Long) reply.get(2)).intValue();
    JobRecord record = JobRecord.decode((byte[]) reply.get(3));
    String error = reply.size() > 4 && reply.get(4) != null ? text(reply.get(4)) : null;
    JobState jobState =
        switch (state) {
          case "s" -> JobState.SCHEDULED;
          case "a" -> JobState.ACTIVE;
          default -> JobState.DEAD;
        };
    return Optional.of(
        new JobInfo(
            id,
            jobState,
            jobState == JobState.SCHEDULED ? at : null,
            jobState == JobState.ACTIVE ? at : null,
            jobState == JobState.DEAD ? at : null,
            attempts,
            record.maxAttempts(),
            Instant.ofEpochMilli(record.createdMillis()),
            record.payload(),
            error));
  }

  @Override
  public QueueStats stats() {
    client.checkOpen("stats on queue '" + name + "'");
    List<CompletableFuture<List<Object>>> replies = new ArrayList<>(partitions.length);
    for (Keys.Partition p : partitions) {
      replies.add(client.scripts().run(Script.STATS, new byte[][] {p.scheduled(), p.active(), p.dead(), p.paused()}));
    }
    long scheduled = 0, due = 0, active = 0, dead = 0;
    boolean paused = false;
    for (CompletableFuture<List<Object>> f : replies) {
      List<Object> r = await(f, null, 0);
      scheduled += (Long) r.get(0);
      due += (Long) r.get(1);
      active += (Long) r.get(2);
      dead += (Long) r.get(3);
      paused |= (Long) r.get(4) == 1L;
    }
    return new QueueStats(name, partitions.length, scheduled, due, active, dead, paused);
  }

  @Override
  public void pause() {
    client.checkOpen("pause on queue '" + name + "'");
    var redis = client.async();
    List<CompletableFuture<?>> writes = new ArrayList<>();
    for (Keys.Partition p : partitions) {
      writes.add(redis.set(p.paused(), Keys.bytes("1")).toCompletableFuture());
    }
    writes.add(redis.hset(Keys.bytes(Keys.settings(name)), Keys.bytes("paused"), Keys.bytes("1")).toCompletableFuture());
    writes.forEach(f -> await(f, null, 0));
  }

  @Override
  public void resume() {
    client.checkOpen("resume on queue '" + name + "'");
    var redis = client.async();
    List<CompletableFuture<?>> writes = new ArrayList<>();
    for (Keys.Partition p : partitions) {
      writes.add(redis.del(p.paused()).toCompletableFuture());
    }
    writes.add(redis.hset(Keys.bytes(Keys.settings(name)), Keys.bytes("paused"), Keys.bytes("0")).toCompletableFuture());
    writes.forEach(f -> await(f, null, 0));
    for (Keys.Partition p : partitions) {
      // why: paused workers sleep a whole sweep interval; this wakes them at once
      await(redis.publish(wakeChannel, Keys.bytes(p.number() + ":0")).toCompletableFuture(), null, 0);
    }
  }

  @Override
  public List<JobInfo> deadJobs(int limit) {
    if (limit < 1 || limit > 1000) {
      throw new InvalidRequestException("limit", "must be between 1 and 1000; got " + limit);
    }
    client.checkOpen("deadJobs on queue '" + name + "'");
    List<CompletableFuture<List<Object>>> replies = new ArrayList<>(partitions.length);
    for (Keys.Partition p : partitions) {
      replies.add(
          client.scripts()
              .run(Script.LIST_DEAD, new byte[][] {p.dead(), p.jobs(), p.attempts(), p.errors()}, number(limit)));
    }
    List<JobInfo> dead = new ArrayList<>();
    for (CompletableFuture<List<Object>> f : replies) {
      List<Object> r = await(f, null, 0);
      for (int i = 0; i + 4 < r.size(); i += 5) {
        byte[] stored = (byte[]) r.get(i + 3);
        if (stored.length == 0) {
          continue;
        }
        JobRecord record = JobRecord.decode(stored);
        String error = text(r.get(i + 4));
        dead.add(
            new JobInfo(
                text(r.get(i)),
                JobState.DEAD,
                null,
                null,
                Instant.ofEpochMilli((Long) r.get(i + 1)),
                ((Long) r.get(i + 2)).intValue(),
                record.maxAttempts(),
                Instant.ofEpochMilli(record.createdMillis()),
                record.payload(),
                error.isEmpty() ? null : error));
      }
    }
    dead.sort(Comparator.comparing(JobInfo::deadAt).reversed());
    return dead.size() > limit ? List.copyOf(dead.subList(0, limit)) : dead;
  }

  @Override
  public boolean requeueDead(String id) {
    Rules.checkJobId(id);
    client.checkOpen("requeueDead on queue '" + name + "'");
    Keys.Partition p = partitionOf(id);
    Long due =
        await(
            client.scripts()
                .<Long>run(
                    Script.REQUEUE_DEAD,
                    new byte[][] {p.dead(), p.scheduled(), p.attempts()},
                    Keys.bytes(id),
                    wakeChannel,
                    number(p.number())),
            id,
            0);
    return due >= 0;
  }

  @Override
  public boolean deleteDead(String id) {
    Rules.checkJobId(id);
    client.checkOpen("deleteDead on queue '" + name + "'");
    Keys.Partition p = partitionOf(id);
    Long deleted =
        await(
            client.scripts()
                .<Long>run(
                    Script.DELETE_DEAD,
                    new byte[][] {p.dead(), p.jobs(), p.attempts(), p.errors()},
                    Keys.bytes(id)),
            id,
            0);
    return deleted == 1L;
  }

  // ---- consuming ----

  /** What one claim on one partition returned. */
  record Claimed(long redisMicros, long nextWakeMillis, boolean paused, List<LeasedJob> jobs) {}

  CompletableFuture<Claimed> claim(ScriptRunner scripts, int p, int max, long leaseMillis) {
    Keys.Partition k = partitions[p];
    byte[][] keys = {k.scheduled(), k.active(), k.jobs(), k.attempts(), k.dead(), k.errors(), k.paused()};
    ClientSettings s = client.settings();
    return scripts
        .<List<Object>>run(
            Script.CLAIM,
            keys,
            number(max),
            number(leaseMillis),
            number(RECOVER_PER_CLAIM),
            number(deadLetterCapPerPartition()),
            number(s.deadLetterRetention().toMillis()))
        .thenApply(reply -> toClaimed(reply, leaseMillis));
  }

  private Claimed toClaimed(List<Object> reply, long leaseMillis) {
    long nowMicros = (Long) reply.get(0);
    long nowMillis = nowMicros / 1000;
    Instant leaseUntil = Instant.ofEpochMilli(nowMillis + leaseMillis);
    List<LeasedJob> jobs = new ArrayList<>((reply.size() - 3) / 4);
    for (int i = 3; i + 3 < reply.size(); i += 4) {
      JobRecord record = JobRecord.decode((byte[]) reply.get(i + 3));
      jobs.add(
          new LeasedJob(
              this,
              text(reply.get(i)),
              record.payload(),
              ((Long) reply.get(i + 2)).intValue(),
              record.maxAttempts(),
              Instant.ofEpochMilli(Long.parseLong(text(reply.get(i + 1)))),
              leaseUntil,
              Instant.ofEpochMilli(record.createdMillis())));
    }
    return new Claimed(nowMicros, (Long) reply.get(1), (Long) reply.get(2) == 1L, jobs);
  }

  private int deadLetterCapPerPartition() {
    return Math.max(1, (client.settings().deadLetterLimit() + partitions.length - 1) / partitions.length);
  }

  @Override
  public List<LeasedJob> claim(int max, Duration lease) {
    if (max < 1 || max > 1000) {
      throw new InvalidRequestException("max", "must be between 1 and 1000; got " + max);
    }
    long leaseMillis = Rules.checkLease(lease);
    client.checkOpen("claim on queue '" + name + "'");
    List<LeasedJob> jobs = new ArrayList<>();
    claimRound(jobs, max, leaseMillis);
    return jobs;
  }

  /**
   * Claims from the partitions in turn, starting one further than the last round, until {@code
   * max} jobs are in {@code jobs}. Returns how long until the earliest next due time or lease
   * deadline any partition reported (nanoseconds), or {@link Long#MAX_VALUE} when none did.
   */
  private long claimRound(List<LeasedJob> jobs, int max, long leaseMillis) {
    long nextWakeMillis = Long.MAX_VALUE;
    long redisMillis = 0;
    int start = Math.floorMod(claimCursor.getAndIncrement(), partitions.length);
    for (int i = 0; i < partitions.length && jobs.size() < max; i++) {
      int p = (start + i) % partitions.length;
      Claimed claimed = await(claim(client.scripts(), p, max - jobs.size(), leaseMillis), null, 0);
      jobs.addAll(claimed.jobs());
      redisMillis = claimed.redisMicros() / 1000;
      if (claimed.nextWakeMillis() >= 0 && !claimed.paused()) {
        nextWakeMillis = Math.min(nextWakeMillis, claimed.nextWakeMillis());
      }
    }
    return nextWakeMillis == Long.MAX_VALUE
        ? Long.MAX_VALUE
        : TimeUnit.MILLISECONDS.toNanos(Math.max(1, nextWakeMillis - redisMillis));
  }

  /** Longest a claim may wait for work: long polls beyond it are better reissued. */
  private static final Duration MAX_CLAIM_WAIT = Duration.ofMinutes(5);
  /** How often a waiting claim looks again even without a wake-up message. */
  private static final long CLAIM_SWEEP_NANOS = TimeUnit.SECONDS.toNanos(1);

  @Override
  public List<LeasedJob> claim(int max, Duration lease, Duration wait) {
    Objects.requireNonNull(wait, "wait");
    if (wait.isNegative() || wait.compareTo(MAX_CLAIM_WAIT) > 0) {
      throw new InvalidRequestException("wait", "must be between 0 and 5 minutes; got " + wait);
    }
    List<LeasedJob> jobs = claim(max, lease);
    if (!jobs.isEmpty() || wait.isZero()) {
      return jobs;
    }
    long leaseMillis = lease.toMillis();
    long deadline = System.nanoTime() + wait.toNanos();
    ClaimWaiter waiter = new ClaimWaiter();
    CompletableFuture<Void> subscribed = client.wakeBus().register(wakeChannelName(), waiter);
    try {
      // why: once Redis confirms the subscription, a job scheduled after the claim round below
      // announces itself; one scheduled before it, that round finds
      try {
        subscribed.get(Math.min(CLAIM_SWEEP_NANOS, Math.max(0, deadline - System.nanoTime())), TimeUnit.NANOSECONDS);
      } catch (ExecutionException | TimeoutException e) {
        // the sweep bounds the wait instead
      }
      while (true) {
        long untilDue = claimRound(jobs, max, leaseMillis);
        long left = deadline - System.nanoTime();
        if (!jobs.isEmpty() || left <= 0) {
          return jobs;
        }
        waiter.await(Math.min(left, Math.min(untilDue, CLAIM_SWEEP_NANOS)));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return jobs;
    } finally {
      client.wakeBus().unregister(wakeChannelName(), waiter, true);
    }
  }

  /** Cuts a waiting claim's sleep short when an earlier job is announced. */
  private static final class ClaimWaiter implements WakeListener {
    private final Waiter waiter = new Waiter();

    @Override
    public void onWake(int partition, long dueMillis) {
      waiter.wake();
    }

    void await(long nanos) throws InterruptedException {
      waiter.await(nanos);
    }
  }

  @Override
  public QueueDefaults defaults() {
    client.checkOpen("defaults of queue '" + name + "'");
    List<io.lettuce.core.KeyValue<byte[], byte[]>> values =
        await(
            client.async()
                .hmget(Keys.bytes(Keys.settings(name)), Keys.bytes("maxAttempts"), Keys.bytes("leaseMs"))
                .toCompletableFuture(),
            null,
            0);
    int maxAttempts = values.get(0).hasValue() ? Integer.parseInt(text(values.get(0).getValue())) : JobRequest.DEFAULT_MAX_ATTEMPTS;
    Duration lease =
        values.get(1).hasValue() ? Duration.ofMillis(Long.parseLong(text(values.get(1).getValue()))) : WorkerOptions.DEFAULT_LEASE;
    return new QueueDefaults(maxAttempts, lease);
  }

  @Override
  public QueueDefaults setDefaults(QueueDefaults defaults) {
    Objects.requireNonNull(defaults, "defaults");
    Rules.checkLease(defaults.lease());
    client.checkOpen("setDefaults of queue '" + name + "'");
    await(
        client.async()
            .hset(
                Keys.bytes(Keys.settings(name)),
                Map.of(
                    Keys.bytes("maxAttempts"), number(defaults.maxAttempts()),
                    Keys.bytes("leaseMs"), number(defaults.lease().toMillis())))
            .toCompletableFuture(),
        null,
        0);
    return defaults;
  }


  @Override
  public void ack(LeasedJob job) {
    ack(job.id(), job.attempt());
  }

  @Override
  public void ack(String id, int attempt) {
    Rules.checkJobId(id);
    client.checkOpen("ack on queue '" + name + "'");
    List<Long> done =
        await(ackAll(client.scripts(), partitionOf(id).number(), List.of(new Attempt(id, attempt))), id, attempt);
    if (done.get(0) != 1L) {
      throw new LeaseExpiredException(name, id, attempt);
    }
  }

  /** One delivery of one job, as acks and releases name it. */
  record Attempt(String id, int attempt) {}

  /** Acks many jobs of one partition in one call; the answer holds 1 (done) or 0 (refused) each. */
  CompletableFuture<List<Long>> ackAll(ScriptRunner scripts, int p, List<Attempt> attempts) {
    Keys.Partition k = partitions[p];
    byte[][] args = new byte[attempts.size() * 2][];
    for (int i = 0; i < attempts.size(); i++) {
      args[2 * i] = Keys.bytes(attempts.get(i).id());
      args[2 * i + 1] = number(attempts.get(i).attempt());
    }
    return scripts.run(Script.ACK, new byte[][] {k.active(), k.jobs(), k.attempts(), k.errors()}, args);
  }

  @Override
  public JobState nack(String id, int attempt, Duration retryIn, String error) {
    Rules.checkJobId(id);
    client.checkOpen("nack on queue '" + name + "'");
    Duration wait = retryIn != null ? retryIn : Backoff.DEFAULT.delayAfter(attempt, ThreadLocalRandom.current());
    return await(nackAsync(client.scripts(), id, attempt, Rules.delayMillis(wait), false, error), id, attempt);
  }

  CompletableFuture<JobState> nackAsync(
      ScriptRunner scripts, String id, int attempt, long retryMillis, boolean bury, String error) {
    Keys.Partition k = partitionOf(id);
    String reason = error == null || error.isEmpty() ? "failed without a message" : error;
    if (reason.length() > MAX_ERROR_CHARS) {
      reason = reason.substring(0, MAX_ERROR_CHARS) + "…";
    }
    return scripts
        .<List<Object>>run(
            Script.NACK,
            new byte[][] {k.scheduled(), k.active(), k.jobs(), k.attempts(), k.dead(), k.errors()},
            Keys.bytes(id),
            number(attempt),
            number(retryMillis),
            Keys.bytes(bury ? "1" : "0"),
            reason.getBytes(StandardCharsets.UTF_8),
            number(deadLetterCapPerPartition()),
            number(client.settings().deadLetterRetention().toMillis()),
            wakeChannel,
            number(k.number()))
        .thenApply(reply -> (Long) reply.get(0) == 2L ? JobState.DEAD : JobState.SCHEDULED);
  }

  @Override
  public Instant extendLease(String id, int attempt, Duration lease) {
    Rules.checkJobId(id);
    long leaseMillis = Rules.checkLease(lease);
    client.checkOpen("extendLease on queue '" + name + "'");
    Keys.Partition k = partitionOf(id);
    Long until =
        await(
            client.scripts()
                .<Long>run(
                    Script.EXTEND_LEASE,
                    new byte[][] {k.active()},
                    Keys.bytes(id),
                    number(attempt),
                    number(leaseMillis)),
            id,
            attempt);
    return Instant.ofEpochMilli(until);
  }

  @Override
  public boolean release(String id, int attempt) {
    Rules.checkJobId(id);
    client.checkOpen("release on queue '" + name + "'");
    return await(release(client.scripts(), id, attempt), id, attempt);
  }

  /** Hands a held job back to the schedule, due now, without counting the attempt. */
  CompletableFuture<Boolean> release(ScriptRunner scripts, String id, int attempt) {
    Keys.Partition k = partitionOf(id);
    return scripts
        .<Long>run(
            Script.RELEASE,
            new byte[][] {k.scheduled(), k.active(), k.attempts()},
            Keys.bytes(id),
            number(attempt),
            wakeChannel,
            number(k.number()))
        .thenApply(released -> released == 1L);
  }

  @Override
  public Workers startWorkers(JobHandler handler, WorkerOptions options) {
    if (handler == null) {
      throw new InvalidRequestException("handler", "is null; pass the code to run for each job");
    }
    Objects.requireNonNull(options, "options");
    client.checkOpen("startWorkers on queue '" + name + "'");
    return WorkerPool.start(client, this, handler, options, Ticker.SYSTEM);
  }

  String wakeChannelName() {
    return Keys.wakeChannel(name);
  }

  <T> T await(CompletableFuture<T> future, String id, int attempt) {
    return client.await(future, name, id, attempt);
  }

  static byte[] number(long n) {
    return Long.toString(n).getBytes(StandardCharsets.US_ASCII);
  }

  static String text(Object o) {
    if (o == null) {
      return "";
    }
    return o instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : o.toString();
  }

  @Override
  public String toString() {
    return "JobQueue[" + name + ", partitions=" + partitions.length + "]";
  }
}
