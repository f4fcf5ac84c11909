package io.delayq.spring.internal.tx;

import io.delayq.Delayq;
import io.delayq.DelayqClosedException;
import io.delayq.DuplicatePolicy;
import io.delayq.InvalidRequestException;
import io.delayq.JobActiveException;
import io.delayq.JobInfo;
import io.delayq.JobNotFoundException;
import io.delayq.JobQueue;
import io.delayq.JobRequest;
import io.delayq.NotReplicatedException;
import io.delayq.OutcomeUnknownException;
import io.delayq.QueueConfigurationException;
import io.delayq.RedisCommandException;
import io.delayq.RedisUnavailableException;
import io.delayq.ScheduledJob;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies locked outbox rows to Redis, in seq order, and says which are done and which are put
 * off. The caller holds the rows' locks in its database transaction, deletes the done ones and
 * commits; so a row is applied by one delivery at a time, and a transaction that deletes a row
 * (a cancel) waits until the delivery holding it has finished.
 *
 * <p>A row may be applied more than once: its delivery may reach Redis and then fail to delete it
 * (the process stops, the database is unreachable). Applying it again must then change nothing,
 * which is why schedules are sent with {@link DuplicatePolicy#KEEP} wherever that means the same
 * as the caller asked (a generated id, or KEEP itself): Redis keeps the job that is there, and for
 * the client's idempotency window also a job that already finished. A {@code REPLACE} schedule
 * taken up by the relay is first compared with what Redis holds, and sent again only if Redis does
 * not hold that very job. Cancels and reschedules to an absolute time repeat harmlessly.
 */
final class Delivery {
  private static final Logger LOG = LoggerFactory.getLogger(Delivery.class);
  private static final Duration MAX_BACKOFF = Duration.ofMinutes(5);
  /** A row Redis refuses for what it is (its payload too large for the client, say) is tried hourly. */
  private static final Duration REFUSED_RETRY = Duration.ofHours(1);

  /** Who delivers: the committing transaction's own synchronization, or the relay. */
  enum Mode {
    AFTER_COMMIT,
    RELAY
  }

  /** A row put off: until when, and whether a failed try counts against it. */
  record Postponed(long seq, long untilMs, boolean countsAsAttempt) {}

  /** What a delivery did. */
  static final class Result {
    final List<Long> done = new ArrayList<>();
    final List<Postponed> postponed = new ArrayList<>();
    /** Set when Redis could not be reached: the rows from the failing one on were left as they were. */
    RuntimeException redisFailure;
    /** Rows the delivery was given. */
    int taken;
  }

  private final Delayq delayq;
  private final OutboxTable table;
  private final OutboxSettings settings;

  Delivery(Delayq delayq, OutboxTable table, OutboxSettings settings) {
    this.delayq = delayq;
    this.table = table;
    this.settings = settings;
  }

  Result deliver(Connection con, List<OutboxEntry> rows, Mode mode) throws SQLException {
    Result result = new Result();
    long now = System.currentTimeMillis();
    // why: a job with a row put off keeps its later rows back too, so a job's writes apply in order
    Set<String> heldBack = new HashSet<>();
    Map<String, Integer> seenBefore = new HashMap<>();
    List<OutboxEntry> batch = new ArrayList<>();
    for (OutboxEntry row : rows) {
      boolean batchable = row.op() == OutboxEntry.SCHEDULE && (row.keep() || mode == Mode.AFTER_COMMIT);
      if (!batchable || (!batch.isEmpty() && !batch.get(0).queue().equals(row.queue()))) {
        flush(batch, result, heldBack, now);
        if (result.redisFailure != null) {
          return result;
        }
      }
      int ownEarlier = seenBefore.merge(row.key(), 1, Integer::sum) - 1;
      // why: after commit, a row held back goes to the relay's next round; in the relay, it waits a
      // round, so that rows behind a job put off for long are not read again in every round
      long heldUntil = mode == Mode.AFTER_COMMIT ? now : now + settings.relayInterval().toMillis();
      if (heldBack.contains(row.key())) {
        result.postponed.add(new Postponed(row.seq(), heldUntil, false));
        continue;
      }
      // why: a caller's id may have rows from other transactions not in this delivery (locked by
      // another one, or put off): those come first. A generated id has no other rows.
      if (!row.idGenerated() && table.olderRows(con, row) > ownEarlier) {
        heldBack.add(row.key());
        result.postponed.add(new Postponed(row.seq(), heldUntil, false));
        continue;
      }
      if (mode == Mode.RELAY) {
        warnIfOld(row, now);
      }
      if (batchable) {
        batch.add(row);
        continue;
      }
      applyOne(row, result, heldBack, now);
      if (result.redisFailure != null) {
        return result;
      }
    }
    flush(batch, result, heldBack, now);
    return result;
  }

  /** Schedules rows of one queue in one pipelined call. */
  private void flush(List<OutboxEntry> batch, Result result, Set<String> heldBack, long now) {
    if (batch.isEmpty()) {
      return;
    }
    List<JobRequest> requests = batch.stream().map(Delivery::request).toList();
    try {
      queue(batch.get(0)).scheduleAll(requests);
      batch.forEach(row -> result.done.add(row.seq()));
    } catch (JobActiveException e) {
      // why: REPLACE of a job a worker holds; it is sent again once that attempt has ended
      List<ScheduledJob> answers = e.batchResults();
      for (int i = 0; i < batch.size(); i++) {
        if (!answers.isEmpty() && answers.get(i) != null) {
          result.done.add(batch.get(i).seq());
        } else {
          retry(batch.get(i), result, heldBack, now, e);
        }
      }
    } catch (InvalidRequestException | QueueConfigurationException e) {
      if (batch.size() == 1) {
        refused(batch.get(0), result, heldBack, now, e);
      } else {
        // why: find the one Redis refuses; the others go on
        for (OutboxEntry row : batch) {
          flush(new ArrayList<>(List.of(row)), result, heldBack, now);
          if (result.redisFailure != null) {
            break;
          }
        }
      }
    } catch (RuntimeException e) {
      if (isRedisFailure(e)) {
        result.redisFailure = e;
      } else {
        batch.forEach(row -> retry(row, result, heldBack, now, e));
      }
    }
    batch.clear();
  }

  private void applyOne(OutboxEntry row, Result result, Set<String> heldBack, long now) {
    try {
      JobQueue queue = queue(row);
      switch (row.op()) {
        case OutboxEntry.SCHEDULE -> {
          if (!holdsThisJob(queue, row)) {
            queue.schedule(request(row));
          }
        }
        case OutboxEntry.CANCEL -> queue.cancel(row.jobId());
        case OutboxEntry.RESCHEDULE -> {
          try {
            queue.reschedule(row.jobId(), Instant.ofEpochMilli(row.dueMs()));
          } catch (JobNotFoundException e) {
            // why: the job ran or was cancelled before the move reached it: nothing is left to move
            LOG.debug("delayq outbox: nothing to move for the {}: {}", row, e.getMessage());
          }
        }
        default -> throw new IllegalStateException("unknown outbox operation '" + row.op() + "' in " + row);
      }
      result.done.add(row.seq());
    } catch (JobActiveException e) {
      retry(row, result, heldBack, now, e);
    } catch (InvalidRequestException | QueueConfigurationException e) {
      refused(row, result, heldBack, now, e);
    } catch (RuntimeException e) {
      if (isRedisFailure(e)) {
        result.redisFailure = e;
      } else {
        retry(row, result, heldBack, now, e);
      }
    }
  }

  /**
   * For a {@code REPLACE} schedule the relay takes up, whose first delivery may have gone through:
   * whether Redis holds the job it describes (same payload, same attempts allowed), which then
   * needs nothing more. Sending it again would reset the attempts of a job that is retrying.
   */
  private static boolean holdsThisJob(JobQueue queue, OutboxEntry row) {
    Optional<JobInfo> held = queue.get(row.jobId());
    return held.isPresent()
        && held.get().payloadIsJson() == row.json()
        && held.get().maxAttempts() == row.maxAttempts()
        && Arrays.equals(held.get().payload(), row.payload());
  }

  private JobQueue queue(OutboxEntry row) {
    return delayq.queue(row.queue());
  }

  private static JobRequest request(OutboxEntry row) {
    return new JobRequest(
        row.jobId(),
        row.payload(),
        null,
        Instant.ofEpochMilli(row.dueMs()),
        row.maxAttempts(),
        row.keep() ? DuplicatePolicy.KEEP : DuplicatePolicy.REPLACE,
        row.json());
  }

  private void retry(OutboxEntry row, Result result, Set<String> heldBack, long now, RuntimeException e) {
    heldBack.add(row.key());
    long backoff = Math.min(
        settings.relayInterval().toMillis() << Math.min(row.relayAttempts(), 16), MAX_BACKOFF.toMillis());
    result.postponed.add(new Postponed(row.seq(), now + backoff, true));
    if (e instanceof JobActiveException) {
      LOG.debug("delayq outbox: the {} waits for the worker holding the job: {}", row, e.getMessage());
    } else {
      LOG.warn("delayq outbox: the {} failed and is tried again in {} ms", row, backoff, e);
    }
  }

  private void refused(OutboxEntry row, Result result, Set<String> heldBack, long now, RuntimeException e) {
    heldBack.add(row.key());
    result.postponed.add(new Postponed(row.seq(), now + REFUSED_RETRY.toMillis(), true));
    LOG.error(
        "delayq outbox: Redis refuses the {} ({}); it stays in table {} and is tried again every {}."
            + " Fix the cause (for example raise the client's maxPayloadBytes), or delete the row"
            + " to give the write up",
        row, e.getMessage(), table.name(), REFUSED_RETRY);
  }

  private void warnIfOld(OutboxEntry row, long now) {
    long age = now - row.createdMs();
    if (row.op() == OutboxEntry.SCHEDULE && age > settings.idempotencyWindow().toMillis()) {
      LOG.warn(
          "delayq outbox: the {} is applied {} s after it was written, more than the idempotency"
              + " window ({}). If an earlier delivery of it reached Redis and the job has finished"
              + " since, Redis no longer remembers it, and the job runs again",
          row, age / 1000, settings.idempotencyWindow());
    }
  }

  static boolean isRedisFailure(RuntimeException e) {
    return e instanceof RedisUnavailableException
        || e instanceof OutcomeUnknownException
        || e instanceof NotReplicatedException
        || e instanceof DelayqClosedException
        || e instanceof RedisCommandException;
  }
}
