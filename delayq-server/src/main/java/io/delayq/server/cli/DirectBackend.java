package io.delayq.server.cli;

import io.delayq.Delayq;
import io.delayq.DelayqException;
import io.delayq.DuplicatePolicy;
import io.delayq.InvalidRequestException;
import io.delayq.JobActiveException;
import io.delayq.JobFilter;
import io.delayq.Page;
import io.delayq.QueueBusyException;
import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.AdoptionReport;
import io.delayq.JobInfo;
import io.delayq.SortedSetAdoption;
import io.delayq.SortedSetBridge;
import io.delayq.server.forward.ForwardSpec;
import io.delayq.JobNotFoundException;
import io.delayq.JobQueue;
import io.delayq.JobRequest;
import io.delayq.LeaseExpiredException;
import io.delayq.OutcomeUnknownException;
import io.delayq.QueueConfigurationException;
import io.delayq.QueueStats;
import io.delayq.RedisUnavailableException;
import io.delayq.ScheduledJob;
import io.delayq.Schedule;
import io.delayq.ScheduleInfo;
import io.delayq.ScheduleNotFoundException;
import io.delayq.internal.Recurrence;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The commands done on Redis (or a Redis Cluster) through delayq-core's public API. Reads, and
 * every write but schedule, look the queue up with {@link Delayq#existingQueue}, so a mistyped
 * name is reported and never created.
 */
final class DirectBackend implements Backend {
  private final String target;
  private final Delayq delayq;

  private DirectBackend(String target, Delayq delayq) {
    this.target = target;
    this.delayq = delayq;
  }

  /** Connects, or fails with exit code 1 (unreachable) or 2 (malformed URL). */
  static DirectBackend connect(String redisUrl) {
    String target = Format.redact(redisUrl);
    try {
      return new DirectBackend(target, Delayq.connect(redisUrl));
    } catch (RedisUnavailableException e) {
      // why: core's message names the URL too; say it once
      String why = String.valueOf(e.getMessage()).replaceFirst("^cannot connect to Redis at \\S+: ", "");
      throw new CliException(ExitCodes.FAILED, "cannot reach Redis at " + target + ": " + why
          + (why.endsWith(".") ? "" : ".") + " To go through a delayq server instead, leave --redis and REDIS_URL unset", e);
    } catch (InvalidRequestException e) {
      throw CliException.usage("--redis " + target + " is not a usable Redis URL: " + e.getMessage()
          + ". Write redis://[user:password@]host:port, rediss://… for TLS, or several comma-separated for a cluster");
    }
  }

  @Override
  public String target() {
    return target;
  }

  @Override
  public ScheduledJob schedule(String queue, Enqueue request) {
    return call(() -> {
      // why: the request is checked whole before the queue is opened, which creates it when new
      JobRequest job = JobRequest.of(request.payload())
          .withOnDuplicate(request.keep() ? DuplicatePolicy.KEEP : DuplicatePolicy.REPLACE);
      if (request.maxAttempts() != null) {
        job = job.withMaxAttempts(request.maxAttempts());
      }
      if (request.id() != null) {
        job = job.withId(request.id());
      }
      if (request.delay() != null) {
        job = job.withDelay(request.delay());
      } else if (request.runAt() != null) {
        job = job.withRunAt(request.runAt());
      }
      JobQueue q = request.partitions() == null ? delayq.queue(queue) : delayq.queue(queue, request.partitions());
      if (request.maxAttempts() == null) {
        job = job.withMaxAttempts(q.admin().defaults().maxAttempts());
      }
      return q.schedule(job);
    });
  }

  @Override
  public JobInfo get(String queue, String id) {
    return call(() -> existing(queue).get(id)
        .orElseThrow(() -> CliException.notFound(Format.noSuchJob(queue, id))));
  }

  @Override
  public void cancel(String queue, String id) {
    call(() -> {
      if (!existing(queue).cancel(id)) {
        throw CliException.notFound("job '" + id + "' in queue '" + queue + "': no scheduled job has that id;"
            + " it may have run, been cancelled, or never existed (`delayq get " + queue + " " + id + "` shows it)");
      }
      return null;
    });
  }

  @Override
  public ScheduledJob reschedule(String queue, String id, Duration delay, Instant runAt) {
    return call(() -> delay != null ? existing(queue).reschedule(id, delay) : existing(queue).reschedule(id, runAt));
  }

  @Override
  public List<QueueStats> stats() {
    return call(() -> {
      List<QueueStats> all = new ArrayList<>();
      for (String name : delayq.queueNames()) {
        // why: a queue may vanish between the listing and the lookup; skip it rather than fail. One
        // whose keys another program overwrote is named on stderr and skipped, not fatal to the rest.
        try {
          delayq.existingQueue(name).ifPresent(q -> all.add(q.admin().stats()));
        } catch (io.delayq.RedisCommandException broken) {
          System.err.println(TerminalText.line("delayq stats: skipping queue '" + name + "': " + broken.getMessage()));
        }
      }
      return all;
    });
  }

  @Override
  public QueueStats stats(String queue) {
    return call(() -> existing(queue).admin().stats());
  }

  @Override
  public JsonNode forwarding(String queue) {
    return call(() -> {
      java.util.Optional<String> stored = existing(queue).admin().forwardingSpec();
      if (stored.isEmpty()) {
        return null;
      }
      try {
        return (JsonNode) ForwardSpec.fromStored(stored.get()).toJson();
      } catch (IllegalStateException unreadable) {
        return (JsonNode) ForwardSpec.JSON.createObjectNode().put("error", unreadable.getMessage());
      }
    });
  }

  @Override
  public void setForwarding(String queue, ForwardSpec spec) {
    call(() -> {
      delayq.queue(queue).admin().setForwardingSpec(spec == null ? null : spec.stored());
      return null;
    });
  }

  @Override
  public SchedulePage listSchedules(String queue, String cursor, int limit) {
    return call(() -> {
      io.delayq.Page<ScheduleInfo> page = existing(queue).schedules().list(cursor, limit);
      return new SchedulePage(page.items(), page.nextCursor().orElse(null));
    });
  }

  @Override
  public ScheduleInfo getSchedule(String queue, String name) {
    return call(() -> existing(queue).schedules().get(name)
        .orElseThrow(() -> CliException.notFound(Format.noSuchSchedule(queue, name))));
  }

  @Override
  public ScheduleInfo setSchedule(String queue, Schedule schedule, boolean maxAttemptsGiven) {
    return call(() -> {
      // why: opening the queue creates it when new; a schedule the store would refuse (an end in
      // the past, no occurrence left) is refused before, so that a refused command leaves nothing
      Recurrence.checkFires(schedule, System.currentTimeMillis());
      JobQueue q = delayq.queue(queue);
      return q.schedules().set(
          maxAttemptsGiven ? schedule : schedule.withMaxAttempts(q.admin().defaults().maxAttempts()));
    });
  }

  @Override
  public void removeSchedule(String queue, String name) {
    call(() -> {
      if (!existing(queue).schedules().remove(name)) {
        throw CliException.notFound(Format.noSuchSchedule(queue, name));
      }
      return null;
    });
  }

  @Override
  public ScheduleInfo pauseSchedule(String queue, String name) {
    return call(() -> existing(queue).schedules().pause(name));
  }

  @Override
  public ScheduleInfo resumeSchedule(String queue, String name) {
    return call(() -> existing(queue).schedules().resume(name));
  }

  @Override
  public ScheduledJob runScheduleNow(String queue, String name) {
    return call(() -> existing(queue).schedules().runNow(name));
  }

  @Override
  public AdoptionReport importSortedSet(String queue, SortedSetAdoption options) {
    return call(() -> delayq.queue(queue).importSortedSet(options));
  }

  @Override
  public SortedSetBridge adopt(String queue, SortedSetAdoption options) {
    return call(() -> delayq.queue(queue).adopt(options));
  }

  @Override
  public void pause(String queue) {
    call(() -> {
      existing(queue).admin().pause();
      return null;
    });
  }

  @Override
  public void resume(String queue) {
    call(() -> {
      existing(queue).admin().resume();
      return null;
    });
  }

  @Override
  public List<JobInfo> deadJobs(String queue, int limit) {
    return call(() -> existing(queue).admin().deadJobs(limit));
  }

  @Override
  public void requeueDead(String queue, String id) {
    call(() -> {
      if (!existing(queue).admin().requeueDead(id)) {
        throw CliException.notFound(Format.noSuchDeadJob(queue, id));
      }
      return null;
    });
  }

  @Override
  public void deleteDead(String queue, String id) {
    call(() -> {
      if (!existing(queue).admin().deleteDead(id)) {
        throw CliException.notFound(Format.noSuchDeadJob(queue, id));
      }
      return null;
    });
  }

  @Override
  public JobPage listJobs(String queue, ListedState state, String cursor, int limit) {
    return call(() -> {
      Page<JobInfo> page = existing(queue).admin().listJobs(JobFilter.valueOf(state.name()), cursor, limit);
      return new JobPage(page.items(), page.nextCursor().orElse(null));
    });
  }

  @Override
  public long deleteQueue(String queue, boolean force) {
    return call(() -> {
      try {
        return existing(queue).admin().delete(force);
      } catch (QueueBusyException e) {
        throw new CliException(ExitCodes.CONFLICT, e.getMessage() + "; `delayq delete-queue " + queue
            + " --force` deletes it anyway, with the jobs workers hold now", e);
      }
    });
  }

  @Override
  public void close() {
    delayq.close();
  }

  private JobQueue existing(String queue) {
    return delayq.existingQueue(queue).orElseThrow(() -> CliException.notFound(Format.noSuchQueue(queue, target)));
  }

  /** Runs one core call, turning its exceptions into exit codes. */
  private <T> T call(Supplier<T> action) {
    try {
      return action.get();
    } catch (JobNotFoundException e) {
      throw new CliException(ExitCodes.NOT_FOUND, e.getMessage(), e);
    } catch (ScheduleNotFoundException e) {
      throw new CliException(ExitCodes.NOT_FOUND, Format.noSuchSchedule(e.queue(), e.name()), e);
    } catch (JobActiveException e) {
      throw new CliException(ExitCodes.CONFLICT, e.getMessage() + "; " + Format.activeHint(e.queue(), e.jobId()), e);
    } catch (LeaseExpiredException | QueueConfigurationException e) {
      throw new CliException(ExitCodes.CONFLICT, e.getMessage(), e);
    } catch (InvalidRequestException e) {
      throw new CliException(ExitCodes.USAGE, e.getMessage(), e);
    } catch (RedisUnavailableException e) {
      throw new CliException(ExitCodes.FAILED, "Redis at " + target + " failed the call: " + e.getMessage(), e);
    } catch (OutcomeUnknownException e) {
      throw new CliException(ExitCodes.OUTCOME_UNKNOWN, Format.outcomeUnknown(e.getMessage()), e);
    } catch (DelayqException e) {
      throw new CliException(ExitCodes.FAILED, e.getMessage(), e);
    }
  }
}
