package io.delayq.server.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import io.delayq.InvalidRequestException;
import io.delayq.JobFilter;
import io.delayq.JobInfo;
import io.delayq.JobQueue;
import io.delayq.InvalidRequestException;
import io.delayq.Page;
import io.delayq.QueueBusyException;
import io.delayq.QueueConfigurationException;
import io.delayq.RedisCommandException;
import io.delayq.QueueDefaults;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.delayq.server.forward.ForwardSpec;
import io.delayq.server.forward.ForwardSupervisor;
import java.util.Set;

/** Queue-level calls: counts, settings, pause and resume, the dead-letter set, deletion. */
final class QueueEndpoints {
  static final int MAX_PARTITIONS = 1024;
  static final int MAX_DEAD_LIMIT = 1000;
  private static final Set<String> SETTINGS_FIELDS = Fields.names("partitions", "maxAttempts", "leaseMs", "forward");
  static final int DEFAULT_LIST_LIMIT = 100;
  static final int MAX_LIST_LIMIT = 1000;

  private final Queues queues;
  private final int maxPartitions;
  private final ForwardSupervisor forwarding;

  /**
   * @param maxPartitions most partitions a queue created or configured here may have ({@code --max-partitions})
   * @param forwarding runs the queues' forwarding in this server, or null
   */
  QueueEndpoints(Queues queues, int maxPartitions, ForwardSupervisor forwarding) {
    this.queues = queues;
    this.maxPartitions = maxPartitions;
    this.forwarding = forwarding;
  }

  /**
   * Waits, briefly, for this server to apply a changed forwarding, so that the answer shows the new
   * forwarder and a removed one has stopped here; other instances follow within their refresh.
   */
  private static void awaitApplied(java.util.concurrent.CompletableFuture<Void> applied) {
    try {
      applied.get(5, java.util.concurrent.TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
      // why: the spec is stored; the forwarder follows at the next refresh, as on every other instance
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** A queue's stats, with its forwarding and this server's forwarder's status when it has one. */
  private ObjectNode stats(JobQueue queue) {
    ObjectNode stats = Views.stats(queue.admin().stats());
    Optional<String> stored = queue.admin().forwardingSpec();
    if (stored.isPresent()) {
      stats.set("forward", forwardView(queue.name(), stored.get()));
    }
    return stats;
  }

  private ObjectNode forwardView(String queue, String stored) {
    ObjectNode view;
    ForwardSpec spec = null;
    try {
      spec = ForwardSpec.fromStored(stored);
      view = spec.toJson();
    } catch (IllegalStateException unreadable) {
      view = Json.object().put("error", unreadable.getMessage());
    }
    Optional<ForwardSupervisor.View> running = forwarding == null ? Optional.empty() : forwarding.view(queue);
    // why: the server applies a new spec moments after storing it; until then the forwarder it
    // runs is the previous spec's, whose status would be shown as the new one's
    if (running.isPresent() && running.get().status() != null && java.util.Objects.equals(running.get().spec(), spec)) {
      view.set("status", Views.forwarderStatus(running.get().status()));
    }
    return view;
  }

  /**
   * {@code GET /v1/queues?limit=N&cursor=C} → 200 array of stats, by name, at most {@code limit}
   * queues (default 100); when more follow, a {@code Link: <...>; rel="next"} header (RFC 8288)
   * names the next page. The body stays a bare array, as clients of the unpaged list parse it.
   */
  Response list(Request request) {
    int limit = (int) request.queryInteger("limit", 1, MAX_LIST_LIMIT, DEFAULT_LIST_LIMIT);
    Page<String> names = queues.delayq().queueNames(request.query("cursor"), limit);
    ArrayNode answer = Json.array();
    for (String name : names.items()) {
      try {
        // why: a queue deleted since its name was read is left out, not shown as empty
        queues.delayq().existingQueue(name).ifPresent(queue -> answer.add(stats(queue)));
      } catch (RedisCommandException broken) {
        // why: one queue whose keys another program overwrote must not hide every other queue
        answer.add(Json.object().put("queue", name).put("error", broken.getMessage()));
      }
    }
    Response response = Response.ok(answer);
    if (names.nextCursor().isPresent()) {
      String next = "/v1/queues?cursor=" + PathCodec.encodeSegment(names.nextCursor().get()) + "&limit=" + limit;
      response = response.withHeader("Link", "<" + next + ">; rel=\"next\"");
    }
    return response;
  }

  /** {@code GET /v1/queues/{queue}} → 200 stats, or 404. */
  Response get(Request request) {
    return Response.ok(stats(queues.existing(request.path("queue"))));
  }

  /**
   * {@code PUT /v1/queues/{queue}} {@code {"partitions"?,"maxAttempts"?,"leaseMs"?,"forward"?}} → 200
   * the settings; creates the queue when new. A partition change is refused with 409 while the queue
   * holds jobs. {@code forward} (see {@link ForwardSpec}) makes every server instance forward the
   * queue's due jobs there; {@code "forward": null} stops it; left out, it stays as it is.
   */
  Response put(Request request) throws Exception {
    String name = request.path("queue");
    Fields fields = Fields.of(request.jsonOrEmptyObject(BodyLimits.SMALL_BYTES), "body", "", SETTINGS_FIELDS);
    OptionalLong partitions = fields.integer("partitions", 1, MAX_PARTITIONS);
    OptionalLong maxAttempts = fields.integer("maxAttempts", 1, JobRequests.MAX_ATTEMPTS);
    OptionalLong leaseMs = fields.integer("leaseMs", WorkerEndpoints.MIN_LEASE_MS, WorkerEndpoints.MAX_LEASE_MS);
    // why: checked before anything is written, so a bad forward changes nothing else either
    boolean forwardGiven = fields.present("forward");
    ForwardSpec forward = fields.has("forward") ? ForwardSpec.fromJson(fields.raw("forward"), "forward") : null;
    if (partitions.isPresent() && partitions.getAsLong() > maxPartitions) {
      refuseOverCap(name, (int) partitions.getAsLong());
    }
    return queues.writing(name, () -> {
      JobQueue queue = partitions.isPresent() ? withPartitions(name, (int) partitions.getAsLong()) : queues.create(name);
      QueueDefaults defaults = queue.admin().defaults();
      if (maxAttempts.isPresent() || leaseMs.isPresent()) {
        defaults =
            queues.setDefaults(
                queue,
                new QueueDefaults(
                    maxAttempts.isPresent() ? (int) maxAttempts.getAsLong() : defaults.maxAttempts(),
                    leaseMs.isPresent() ? Duration.ofMillis(leaseMs.getAsLong()) : defaults.lease()));
      }
      ObjectNode answer = Views.settings(name, queue.partitions(), defaults);
      if (forwardGiven) {
        queue.admin().setForwardingSpec(forward == null ? null : forward.stored());
        if (forwarding != null) {
          awaitApplied(forwarding.refreshSoon(name));
        }
      }
      Optional<String> stored = queue.admin().forwardingSpec();
      if (stored.isPresent()) {
        answer.set("forward", forwardView(name, stored.get()));
      }
      return Response.ok(answer);
    });
  }

  /**
   * A partition count over the server's cap is refused, unless the queue already has it (created
   * before the cap, or by the library): saying again what a queue is costs nothing. Why a cap: each
   * partition is a Redis call in every claim sweep, long poll and stats, so a client asking for the
   * largest count on many queues could make one long poll cost tens of thousands of calls.
   */
  private void refuseOverCap(String name, int partitions) {
    if (queues.delayq().existingQueue(name).map(JobQueue::partitions).orElse(0) == partitions) {
      return;
    }
    throw new InvalidRequestException(
        "partitions",
        "must be at most " + maxPartitions + " on this server; got " + partitions + ". Each partition costs Redis"
            + " calls in every claim, long poll and stats: use fewer, or start the server with a higher"
            + " --max-partitions (DELAYQ_MAX_PARTITIONS), up to " + MAX_PARTITIONS);
  }

  /**
   * The queue with this partition count. The count is fixed when a queue is first used; the core
   * refuses another one, even for an empty queue, with a message that says how to migrate, and that
   * refusal is a 409.
   */
  private JobQueue withPartitions(String name, int partitions) {
    try {
      return queues.delayq().queue(name, partitions);
    } catch (QueueConfigurationException refused) {
      throw ApiException.conflict(refused.getMessage());
    }
  }

  /**
   * {@code DELETE /v1/queues/{queue}?force=true|false} → 200 {@code {"queue","deletedJobs"}}; 404
   * unknown queue; 409 while workers hold jobs of it, unless forced.
   */
  Response delete(Request request) throws Exception {
    String force = java.util.Objects.requireNonNullElse(request.query("force"), "false");
    if (!force.equals("true") && !force.equals("false")) {
      throw new InvalidRequestException(
          "force", "must be true or false; got '" + PathCodec.abbreviate(force) + "'. Leave it out (false) to refuse"
              + " while workers hold jobs of the queue; true deletes those too");
    }
    String name = request.path("queue");
    JobQueue queue = queues.existing(name);
    long deleted;
    try {
      deleted = queues.deleting(name, () -> {
        try {
          return queue.admin().delete(force.equals("true"));
        } finally {
          queues.forget(name);
        }
      });
    } catch (QueueBusyException busy) {
      throw ApiException.conflict(busyDetail(busy));
    }
    return Response.ok(Json.object().put("queue", name).put("deletedJobs", deleted));
  }

  /** The core's refusal in the API's own terms. */
  private static String busyDetail(QueueBusyException busy) {
    String path = "/v1/queues/" + PathCodec.encodeSegment(busy.queue());
    String what =
        busy.deletedJobs() == 0
            ? "queue '" + busy.queue() + "' was not deleted: workers hold " + busy.heldJobs() + " of its jobs now."
            : "queue '" + busy.queue() + "' was only partly deleted: " + busy.deletedJobs() + " jobs were deleted, and"
                + " then workers held " + busy.heldJobs() + " more (it was resumed while the delete ran); it stays paused.";
    return what + " Pause it (POST " + path + "/pause) so that no more are claimed, and delete it once GET " + path
        + " shows no active job; or send DELETE " + path + "?force=true to delete held jobs too (their workers'"
        + " acks are then refused with 409)";
  }

  /** {@code POST /v1/queues/{queue}/pause} → 204. */
  Response pause(Request request) {
    queues.existing(request.path("queue")).admin().pause();
    return Response.noContent();
  }

  /** {@code POST /v1/queues/{queue}/resume} → 204. */
  Response resume(Request request) {
    queues.existing(request.path("queue")).admin().resume();
    return Response.noContent();
  }

  /** {@code GET /v1/queues/{queue}/dead?limit=N} → 200 the newest dead jobs first. */
  Response dead(Request request) {
    int limit = (int) request.queryInteger("limit", 1, MAX_DEAD_LIMIT, 100);
    JobQueue queue = queues.existing(request.path("queue"));
    ArrayNode answer = Json.array();
    // why: the listing caps a page at about 1 MiB of payloads; a thousand dead jobs of 1 MiB each,
    // read whole, would be a gigabyte of answer
    Page<JobInfo> page = queue.admin().listJobs(JobFilter.DEAD, null, limit);
    page.items().forEach(job -> answer.add(Views.job(job)));
    Response response = Response.ok(answer);
    return page.nextCursor().isEmpty() ? response : response.withHeader("Link",
        "</v1/queues/" + PathCodec.encodeSegment(queue.name()) + "/jobs?state=dead&limit=" + limit + "&cursor="
            + java.net.URLEncoder.encode(page.nextCursor().get(), java.nio.charset.StandardCharsets.UTF_8)
            + ">; rel=\"next\"");
  }

  /** {@code POST /v1/queues/{queue}/dead/{id}/requeue} → 204, or 404 when no such dead job. */
  Response requeue(Request request) {
    String id = Queues.checkId(request.path("id"));
    JobQueue queue = queues.existing(request.path("queue"));
    if (!queue.admin().requeueDead(id)) {
      throw noDeadJob(queue, id);
    }
    return Response.noContent();
  }

  /** {@code DELETE /v1/queues/{queue}/dead/{id}} → 204, or 404 when no such dead job. */
  Response deleteDead(Request request) {
    String id = Queues.checkId(request.path("id"));
    JobQueue queue = queues.existing(request.path("queue"));
    if (!queue.admin().deleteDead(id)) {
      throw noDeadJob(queue, id);
    }
    return Response.noContent();
  }

  private static ApiException noDeadJob(JobQueue queue, String id) {
    return ApiException.notFound("no dead job '" + id + "' in queue '" + queue.name() + "'");
  }
}
