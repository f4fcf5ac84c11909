package io.delayq.internal;

import io.delayq.Forwarder;
import io.delayq.AdoptionReport;
import io.delayq.InvalidRequestException;
import io.delayq.JobHandler;
import io.delayq.JobInfo;
import io.delayq.JobQueue;
import io.delayq.JobRequest;
import io.delayq.ListForwarding;
import io.delayq.PullConsumer;
import io.delayq.QueueAdmin;
import io.delayq.ScheduledJob;
import io.delayq.Schedules;
import io.delayq.SortedSetAdoption;
import io.delayq.SortedSetBridge;
import io.delayq.WorkerOptions;
import io.delayq.Workers;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/** A queue on Redis, as its users see it: each role's calls live in their own class. */
final class QueueHandle implements JobQueue {
  private final QueueContext context;
  private final Producing producing;
  private final JobLookup lookup;
  private final Settling settling;
  private final Puller puller;
  private final Operating operating;

  QueueHandle(DelayqClient client, String name, int partitions) {
    this.context = new QueueContext(client, name, partitions);
    this.producing = new Producing(context);
    this.lookup = new JobLookup(context);
    this.settling = new Settling(context);
    this.puller = new Puller(context, settling);
    this.operating = new Operating(context);
  }

  DelayqClient client() {
    return context.client;
  }

  @Override
  public String name() {
    return context.name;
  }

  @Override
  public int partitions() {
    return context.partitionCount();
  }

  @Override
  public ScheduledJob schedule(JobRequest request) {
    Objects.requireNonNull(request, "request");
    return producing.scheduleAll(List.of(request)).get(0);
  }

  @Override
  public List<ScheduledJob> scheduleAll(List<JobRequest> requests) {
    return producing.scheduleAll(requests);
  }

  @Override
  public boolean cancel(String id) {
    return lookup.cancel(id);
  }

  @Override
  public ScheduledJob reschedule(String id, Duration delay) {
    Objects.requireNonNull(delay, "delay");
    return lookup.reschedule(id, "d", Rules.delayMillis(delay));
  }

  @Override
  public ScheduledJob reschedule(String id, Instant runAt) {
    Objects.requireNonNull(runAt, "runAt");
    return lookup.reschedule(id, "a", Rules.runAtMillis(runAt));
  }

  @Override
  public Optional<JobInfo> get(String id) {
    return lookup.get(id);
  }

  @Override
  public Workers startWorkers(JobHandler handler, WorkerOptions options) {
    if (handler == null) {
      throw new InvalidRequestException("handler", "is null; pass the code to run for each job");
    }
    Objects.requireNonNull(options, "options");
    context.checkOpen("startWorkers");
    return WorkerPool.start(context.client, settling, handler, options, Ticker.SYSTEM);
  }

  @Override
  public PullConsumer pull() {
    return puller;
  }

  @Override
  public QueueAdmin admin() {
    return operating;
  }

  @Override
  public Forwarder forwardToList(ListForwarding options) {
    if (options == null) {
      throw new InvalidRequestException("options", "is null; pass ListForwarding.toList(\"<list>\").build()");
    }
    context.checkOpen("forwardToList");
    return ListForwarder.start(context.client, settling, options);
  }

  @Override
  public SortedSetBridge adopt(SortedSetAdoption options) {
    Objects.requireNonNull(options, "options");
    context.checkOpen("adopt");
    return AdoptionBridge.start(Adoption.open(context, options), context.client.settings().commandTimeout());
  }

  @Override
  public AdoptionReport importSortedSet(SortedSetAdoption options) {
    Objects.requireNonNull(options, "options");
    context.checkOpen("importSortedSet");
    return Adoption.open(context, options).importAll();
  }

  @Override
  public Schedules schedules() {
    return context.schedules();
  }

  @Override
  public String toString() {
    return "JobQueue[" + context.name + ", partitions=" + context.partitionCount() + "]";
  }
}
