package io.delayq.internal;

import io.delayq.InvalidRequestException;
import io.delayq.JobFilter;
import io.delayq.JobInfo;
import io.delayq.JobRequest;
import io.delayq.JobState;
import io.delayq.Page;
import io.delayq.QueueAdmin;
import io.delayq.QueueConfigurationException;
import io.delayq.QueueDefaults;
import io.delayq.QueueStats;
import io.delayq.WorkerOptions;
import io.lettuce.core.KeyValue;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/** The operator's calls on one queue: counts, listings, pause, dead letters, stored defaults, deletion. */
final class Operating implements QueueAdmin {
  private final QueueContext queue;
  private final DelayqClient client;
  private final JobListing listing;
  private final QueueDeletion deletion;

  Operating(QueueContext queue) {
    this.queue = queue;
    this.client = queue.client;
    this.listing = new JobListing(queue);
    this.deletion = new QueueDeletion(queue);
  }

  @Override
  public QueueStats stats() {
    queue.checkOpen("stats");
    List<CompletableFuture<List<Object>>> replies = sendStats(queue);
    List<List<Object>> answers = new ArrayList<>(replies.size());
    for (CompletableFuture<List<Object>> f : replies) {
      answers.add(queue.await(f, null));
    }
    return sum(queue, answers);
  }

  /** The counts of {@code queue} without waiting for them: what the depth gauges read in the background. */
  static CompletableFuture<QueueStats> statsAsync(QueueContext queue) {
    List<CompletableFuture<List<Object>>> replies = sendStats(queue);
    return CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new))
        .thenApply(done -> sum(queue, replies.stream().map(CompletableFuture::join).toList()));
  }

  private static List<CompletableFuture<List<Object>>> sendStats(QueueContext queue) {
    List<CompletableFuture<List<Object>>> replies = new ArrayList<>(queue.partitionCount());
    for (int p = 0; p < queue.partitionCount(); p++) {
      replies.add(queue.run(queue.client.scripts(), Script.STATS, p));
    }
    return replies;
  }

  private static QueueStats sum(QueueContext queue, List<List<Object>> answers) {
    long scheduled = 0, due = 0, active = 0, expired = 0, dead = 0;
    boolean paused = false;
    Instant oldestDueAt = null;
    Duration oldestDueAge = Duration.ZERO;
    for (List<Object> r : answers) {
      scheduled += (Long) r.get(0);
      due += (Long) r.get(1);
      active += (Long) r.get(2);
      expired += (Long) r.get(3);
      dead += (Long) r.get(4);
      paused |= (Long) r.get(5) == 1L;
      long dueMs = (Long) r.get(6);
      if (dueMs >= 0) {
        // why: each partition's age is taken against its own node's clock; on a cluster the nodes'
        // clocks may differ, and comparing a due time with another node's "now" would skew it
        Duration age = Duration.ofMillis(Math.max(0, (Long) r.get(7) - dueMs));
        if (oldestDueAt == null || age.compareTo(oldestDueAge) > 0) {
          oldestDueAt = Instant.ofEpochMilli(dueMs);
          oldestDueAge = age;
        }
      }
    }
    return new QueueStats(
        queue.name, queue.partitionCount(), scheduled, due, active, expired, dead, paused, oldestDueAt, oldestDueAge);
  }

  @Override
  public Page<JobInfo> listJobs(JobFilter filter, String cursor, int limit) {
    return listing.list(filter, cursor, limit);
  }

  @Override
  public Page<io.delayq.JobSummary> listJobSummaries(JobFilter filter, String cursor, int limit) {
    return listing.summaries(filter, cursor, limit);
  }

  @Override
  public long delete(boolean force) {
    return deletion.delete(force);
  }

  @Override
  public void pause() {
    queue.checkOpen("pause");
    var redis = client.async();
    List<CompletableFuture<?>> writes = new ArrayList<>();
    for (int p = 0; p < queue.partitionCount(); p++) {
      writes.add(redis.set(queue.partition(p).paused(), Keys.bytes("1")).toCompletableFuture());
    }
    writes.forEach(f -> queue.await(f, null));
    // why: the partitions' flags are in other slots than the settings hash, so no one script can
    // check the queue and write them all. The flags go first and the settings last, only while the
    // queue exists: a delete removes the settings hash and then every partition's flag, so a pause
    // that got in before the hash went loses its flags to that last step, and one that came after
    // takes its own back here.
    if (!setSettingsFlag("paused", "1")) {
      List<CompletableFuture<?>> undo = new ArrayList<>();
      for (int p = 0; p < queue.partitionCount(); p++) {
        undo.add(redis.del(queue.partition(p).paused()).toCompletableFuture());
      }
      undo.forEach(f -> queue.await(f, null));
      throw gone("paused");
    }
  }

  @Override
  public void resume() {
    queue.checkOpen("resume");
    var redis = client.async();
    List<CompletableFuture<?>> writes = new ArrayList<>();
    for (int p = 0; p < queue.partitionCount(); p++) {
      writes.add(redis.del(queue.partition(p).paused()).toCompletableFuture());
    }
    writes.forEach(f -> queue.await(f, null));
    if (!setSettingsFlag("paused", "0")) {
      throw gone("resumed");
    }
    for (int p = 0; p < queue.partitionCount(); p++) {
      // why: paused workers sleep a whole sweep interval; this wakes them at once
      queue.await(redis.publish(queue.wakeChannel(), Keys.bytes(p + ":0")).toCompletableFuture(), null);
    }
  }

  /** Sets a field of the settings hash in one step with the check that the queue still exists. */
  private boolean setSettingsFlag(String field, String value) {
    Long set = queue.await(client.scripts().<Long>run(Script.QUEUE_SETTINGS_FLAG,
        new byte[][] {Keys.bytes(Keys.settings(queue.name))}, new byte[][] {Keys.bytes(field), Keys.bytes(value)}), null);
    return set == 1L;
  }

  private QueueConfigurationException gone(String verb) {
    return new QueueConfigurationException("queue '" + queue.name + "' does not exist (it was deleted); nothing was "
        + verb + ". Open it again with Delayq.queue to create it anew");
  }

  @Override
  public List<JobInfo> deadJobs(int limit) {
    if (limit < 1 || limit > 1000) {
      throw new InvalidRequestException("limit", "must be between 1 and 1000; got " + limit);
    }
    queue.checkOpen("deadJobs");
    List<CompletableFuture<List<Object>>> replies = new ArrayList<>(queue.partitionCount());
    for (int p = 0; p < queue.partitionCount(); p++) {
      replies.add(queue.run(client.scripts(), Script.LIST_DEAD, p, QueueContext.number(limit)));
    }
    List<JobInfo> dead = new ArrayList<>();
    for (CompletableFuture<List<Object>> f : replies) {
      List<Object> r = queue.await(f, null);
      for (int i = 0; i + 4 < r.size(); i += 5) {
        byte[] stored = (byte[]) r.get(i + 3);
        if (stored.length == 0) {
          continue;
        }
        String error = QueueContext.text(r.get(i + 4));
        String id = QueueContext.text(r.get(i));
        int maxAttempts;
        Instant created;
        byte[] payload;
        boolean json = false;
        try {
          JobRecord record = JobRecord.decode(stored);
          maxAttempts = record.maxAttempts();
          created = Instant.ofEpochMilli(record.createdMillis());
          payload = record.payload();
          json = record.json();
        } catch (IllegalStateException e) {
          // why: a record nobody can decode is exactly what an operator needs to see here
          maxAttempts = 1;
          created = null;
          payload = stored;
        }
        dead.add(
            new JobInfo(
                id,
                JobState.DEAD,
                null,
                null,
                Instant.ofEpochMilli((Long) r.get(i + 1)),
                ((Long) r.get(i + 2)).intValue(),
                maxAttempts,
                created,
                payload,
                error.isEmpty() ? null : error,
                json));
      }
    }
    dead.sort(Comparator.comparing(JobInfo::deadAt).reversed());
    return dead.size() > limit ? List.copyOf(dead.subList(0, limit)) : dead;
  }

  @Override
  public boolean requeueDead(String id) {
    return requeueDead(id, null);
  }

  @Override
  public boolean requeueDead(String id, Instant diedNoLaterThan) {
    Rules.checkJobId(id);
    queue.checkOpen("requeueDead");
    Long due = queue.await(queue.<Long>run(client.scripts(), Script.REQUEUE_DEAD, queue.partitionOf(id), Keys.bytes(id),
        diedBy(diedNoLaterThan)), id);
    return due >= 0;
  }

  @Override
  public boolean deleteDead(String id) {
    return deleteDead(id, null);
  }

  @Override
  public boolean deleteDead(String id, Instant diedNoLaterThan) {
    Rules.checkJobId(id);
    queue.checkOpen("deleteDead");
    Long deleted = queue.await(queue.<Long>run(client.scripts(), Script.DELETE_DEAD, queue.partitionOf(id), Keys.bytes(id),
        diedBy(diedNoLaterThan)), id);
    return deleted == 1L;
  }

  /** The scripts' "died at or before" argument: epoch ms, or empty for any time. */
  private static byte[] diedBy(Instant diedNoLaterThan) {
    if (diedNoLaterThan == null) {
      return new byte[0];
    }
    // why: a burial time is whole epoch ms, so "at or before" an instant within a millisecond is
    // "at or before" that millisecond; before 1970 nothing was buried
    if (diedNoLaterThan.isBefore(Instant.EPOCH)) {
      return QueueContext.number(-1);
    }
    return QueueContext.number(Math.min(Rules.MAX_DUE_MILLIS,
        diedNoLaterThan.isAfter(Instant.ofEpochMilli(Rules.MAX_DUE_MILLIS)) ? Rules.MAX_DUE_MILLIS : diedNoLaterThan.toEpochMilli()));
  }

  @Override
  public QueueDefaults defaults() {
    queue.checkOpen("defaults");
    List<KeyValue<byte[], byte[]>> values =
        queue.await(
            client.async()
                .hmget(Keys.bytes(Keys.settings(queue.name)), Keys.bytes("maxAttempts"), Keys.bytes("leaseMs"))
                .toCompletableFuture(),
            null);
    int maxAttempts =
        values.get(0).hasValue()
            ? Integer.parseInt(QueueContext.text(values.get(0).getValue()))
            : JobRequest.DEFAULT_MAX_ATTEMPTS;
    Duration lease =
        values.get(1).hasValue()
            ? Duration.ofMillis(Long.parseLong(QueueContext.text(values.get(1).getValue())))
            : WorkerOptions.DEFAULT_LEASE;
    return new QueueDefaults(maxAttempts, lease);
  }

  @Override
  public QueueDefaults setDefaults(QueueDefaults defaults) {
    Objects.requireNonNull(defaults, "defaults");
    Rules.checkLease(defaults.lease());
    queue.checkOpen("setDefaults");
    queue.await(
        client.async()
            .hset(
                Keys.bytes(Keys.settings(queue.name)),
                Map.of(
                    Keys.bytes("maxAttempts"), QueueContext.number(defaults.maxAttempts()),
                    Keys.bytes("leaseMs"), QueueContext.number(defaults.lease().toMillis())))
            .toCompletableFuture(),
        null);
    return defaults;
  }

  private static final byte[] FORWARD_FIELD = Keys.bytes("forward");

  @Override
  public java.util.Optional<String> forwardingSpec() {
    queue.checkOpen("forwardingSpec");
    byte[] value = queue.await(client.async().hget(Keys.bytes(Keys.settings(queue.name)), FORWARD_FIELD).toCompletableFuture(), null);
    return value == null || value.length == 0
        ? java.util.Optional.empty()
        : java.util.Optional.of(new String(value, java.nio.charset.StandardCharsets.UTF_8));
  }

  @Override
  public void setForwardingSpec(String spec) {
    queue.checkOpen("setForwardingSpec");
    byte[] key = Keys.bytes(Keys.settings(queue.name));
    if (spec == null || spec.isEmpty()) {
      queue.await(client.async().hdel(key, FORWARD_FIELD).toCompletableFuture(), null);
      return;
    }
    byte[] bytes = spec.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    if (bytes.length > Rules.MAX_FORWARDING_SPEC_BYTES) {
      throw new io.delayq.InvalidRequestException("forwardingSpec",
          "takes " + bytes.length + " bytes; at most " + Rules.MAX_FORWARDING_SPEC_BYTES + " are kept with a queue");
    }
    queue.await(client.async().hset(key, FORWARD_FIELD, bytes).toCompletableFuture(), null);
  }

  @Override
  public List<io.delayq.HistoryBucket> historyByMinute(int minutes) {
    HistoryFields.checkMinutes(minutes);
    queue.checkOpen("historyByMinute");
    String name = queue.name;
    return HistoryRecorder.read(client, minutes, HistoryFields.MINUTE, m -> Keys.historyMinute(name, m));
  }

  @Override
  public List<io.delayq.HistoryBucket> historyByHour(int hours) {
    HistoryFields.checkHours(hours);
    queue.checkOpen("historyByHour");
    String name = queue.name;
    return HistoryRecorder.read(client, hours, HistoryFields.HOUR, h -> Keys.historyHour(name, h));
  }
}
