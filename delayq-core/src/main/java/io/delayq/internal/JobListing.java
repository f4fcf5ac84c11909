package io.delayq.internal;

import io.delayq.InvalidRequestException;
import io.delayq.JobFilter;
import io.delayq.JobInfo;
import io.delayq.JobState;
import io.delayq.JobSummary;
import io.delayq.Page;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Lists one kind of job of a queue in pages: each partition gives its next jobs after the cursor
 * (one script, {@code list-jobs.lua}), and the answers are merged in (score, id) order.
 *
 * <p>A partition that stopped early (at the limit or its byte budget) may hold jobs between its
 * last one and those of other partitions, so the page ends at the earliest such last job: the
 * merge never skips a job. Each partition gives at least one job, so every page moves on.
 */
final class JobListing {
  static final int MAX_LIMIT = 1000;
  /** Payload bytes a page holds at most, unless its only job is larger. */
  static final int PAGE_PAYLOAD_BYTES = 1024 * 1024;
  /** Record bytes one partition sends per page at least, however many partitions share the page. */
  static final int MIN_PARTITION_BYTES = 64 * 1024;

  /** Values per job in a {@code list-jobs.lua} reply. */
  private static final int FIELDS = 8;

  private static final Comparator<Entry> ORDER =
      Comparator.comparingDouble(Entry::score).thenComparing(Entry::member, Arrays::compareUnsigned);

  private final QueueContext queue;

  JobListing(QueueContext queue) {
    this.queue = queue;
  }

  /**
   * One job as a partition listed it; {@code record} is empty when the job had none, and null
   * (with {@code deferredSize}) when it was too large to send before it was known to make the page.
   */
  private record Entry(int partition, byte[] member, double score, long time, int attempts, byte[] record,
      long deferredSize, String error, byte[] lease, long payloadSize) {}

  /** One partition's answer: its next entries in order, and whether it holds more after them. */
  private record Batch(List<Entry> entries, boolean more) {}

  Page<JobInfo> list(JobFilter filter, String cursor, int limit) {
    Page<JobSummary> page = list(filter, cursor, limit, false);
    return new Page<>(page.items().stream().map(JobSummary::job).toList(), page.nextCursor());
  }

  /** One page of summaries: the records' headers only, each with its payload's size. */
  Page<JobSummary> summaries(JobFilter filter, String cursor, int limit) {
    return list(filter, cursor, limit, true);
  }

  private Page<JobSummary> list(JobFilter filter, String cursor, int limit, boolean summaries) {
    Objects.requireNonNull(filter, "filter");
    if (limit < 1 || limit > MAX_LIMIT) {
      throw new InvalidRequestException("limit", "must be between 1 and " + MAX_LIMIT + "; got " + limit);
    }
    String listing = (summaries ? "summaries:" : "jobs:") + queue.name + ":" + filter.name();
    Cursors.Position after = cursor == null ? null : Cursors.decode(listing, cursor);
    queue.checkOpen("listJobs");
    int partitions = queue.partitionCount();
    byte[] budget = QueueContext.number(Math.max(MIN_PARTITION_BYTES, PAGE_PAYLOAD_BYTES / partitions));
    byte[] afterScore = Keys.bytes(after == null ? "" : scoreText(after.score()));
    byte[] afterId = Keys.bytes(after == null ? "" : after.member());
    List<CompletableFuture<List<Object>>> replies = new ArrayList<>(partitions);
    for (int p = 0; p < partitions; p++) {
      replies.add(
          queue.run(
              queue.client.scripts(), Script.LIST_JOBS, p,
              Keys.bytes(code(filter)), QueueContext.number(limit), budget, afterScore, afterId,
              Keys.bytes(summaries ? "1" : "")));
    }
    List<Batch> batches = new ArrayList<>(partitions);
    for (int p = 0; p < partitions; p++) {
      batches.add(batch(p, queue.await(replies.get(p), null)));
    }
    return merge(filter, listing, batches, limit);
  }

  /** The record of a job listed by its size only: it made the page. Empty when it is gone since. */
  private byte[] fetch(Entry entry) {
    byte[] record = queue.await(
        queue.client.async().hget(Keys.partition(queue.name, entry.partition()).jobs(), entry.member()).toCompletableFuture(),
        null);
    return record == null ? new byte[0] : record;
  }

  private Page<JobSummary> merge(JobFilter filter, String listing, List<Batch> batches, int limit) {
    Entry end = null;
    List<Entry> all = new ArrayList<>();
    for (Batch batch : batches) {
      all.addAll(batch.entries());
      if (batch.more()) {
        Entry last = batch.entries().get(batch.entries().size() - 1);
        if (end == null || ORDER.compare(last, end) < 0) {
          end = last;
        }
      }
    }
    all.sort(ORDER);
    List<JobSummary> jobs = new ArrayList<>();
    long bytes = 0;
    Entry lastSeen = null;
    boolean cut = end != null;
    for (Entry entry : all) {
      if (end != null && ORDER.compare(entry, end) > 0) {
        break;
      }
      if (entry.record() == null) {
        if (jobs.size() == limit || (!jobs.isEmpty() && bytes + entry.deferredSize() > PAGE_PAYLOAD_BYTES)) {
          cut = true;
          break;
        }
        entry = new Entry(entry.partition(), entry.member(), entry.score(), entry.time(), entry.attempts(),
            fetch(entry), 0, entry.error(), entry.lease(), entry.payloadSize());
      }
      if (entry.record().length > 0) {
        JobInfo job = job(filter, entry);
        if (jobs.size() == limit || (!jobs.isEmpty() && bytes + job.payload().length > PAGE_PAYLOAD_BYTES)) {
          cut = true;
          break;
        }
        // why: a summary's record is its header only (its payload's size came with it); a
        // record no version can read is sent cut short, so it is not shown as a payload either
        jobs.add(entry.payloadSize() >= 0
            ? new JobSummary(withoutPayload(job), entry.payloadSize())
            : new JobSummary(job, job.payload().length));
        bytes += job.payload().length;
      }
      lastSeen = entry;
    }
    Optional<String> next =
        cut && lastSeen != null
            ? Optional.of(Cursors.encode(listing, lastSeen.score(), new String(lastSeen.member(), StandardCharsets.UTF_8)))
            : Optional.empty();
    return new Page<>(jobs, next);
  }

  private static Batch batch(int partition, List<Object> reply) {
    List<Entry> entries = new ArrayList<>((reply.size() - 1) / FIELDS);
    for (int i = 1; i + FIELDS - 1 < reply.size(); i += FIELDS) {
      Object record = reply.get(i + 4);
      entries.add(
          new Entry(
              partition,
              (byte[]) reply.get(i),
              parseScore(QueueContext.text(reply.get(i + 1))),
              (Long) reply.get(i + 2),
              ((Long) reply.get(i + 3)).intValue(),
              record instanceof Long ? null : (byte[]) record,
              record instanceof Long size ? size : 0,
              QueueContext.text(reply.get(i + 5)),
              (byte[]) reply.get(i + 6),
              (Long) reply.get(i + 7)));
    }
    return new Batch(entries, (Long) reply.get(0) == 1L && !entries.isEmpty());
  }

  private static JobInfo job(JobFilter filter, Entry entry) {
    Instant time = Instant.ofEpochMilli(entry.time());
    JobState state =
        switch (filter) {
          case SCHEDULED, DUE -> JobState.SCHEDULED;
          case ACTIVE -> JobState.ACTIVE;
          case EXPIRED -> JobState.EXPIRED;
          case DEAD -> JobState.DEAD;
        };
    int maxAttempts;
    Instant created;
    byte[] payload;
    boolean json;
    try {
      JobRecord record = JobRecord.decode(entry.record());
      maxAttempts = record.maxAttempts();
      created = Instant.ofEpochMilli(record.createdMillis());
      payload = record.payload();
      json = record.json();
    } catch (IllegalStateException e) {
      // why: a record nobody can decode is what an operator looking through a queue needs to see
      maxAttempts = 1;
      created = null;
      payload = entry.record();
      json = false;
    }
    return JobLookup.info(new String(entry.member(), StandardCharsets.UTF_8), state, time, entry.attempts(),
        maxAttempts, created, payload, entry.error().isEmpty() ? null : entry.error(), json, entry.lease());
  }

  private static JobInfo withoutPayload(JobInfo job) {
    if (job.payload().length == 0) {
      return job;
    }
    return new JobInfo(job.id(), job.state(), job.runAt(), job.leaseUntil(), job.deadAt(), job.attempts(),
        job.maxAttempts(), job.createdAt(), new byte[0], job.lastError(), job.payloadIsJson(), job.fencingToken(),
        job.holder());
  }

  private static String code(JobFilter filter) {
    return switch (filter) {
      case SCHEDULED -> "s";
      case DUE -> "d";
      case ACTIVE -> "a";
      case EXPIRED -> "x";
      case DEAD -> "D";
    };
  }

  /** A score as Redis formats it; {@code inf} is how Redis writes an infinite one (foreign data). */
  private static double parseScore(String text) {
    return switch (text) {
      case "inf", "+inf" -> Double.POSITIVE_INFINITY;
      case "-inf" -> Double.NEGATIVE_INFINITY;
      default -> Double.parseDouble(text);
    };
  }

  /** A score as Redis parses it back exactly: delayq's are whole numbers; others (foreign) as doubles. */
  static String scoreText(double score) {
    if (Double.isInfinite(score)) {
      return score > 0 ? "+inf" : "-inf";
    }
    if (score == Math.rint(score) && Math.abs(score) < 0x1p53) {
      return Long.toString((long) score);
    }
    return Double.toString(score);
  }
}
