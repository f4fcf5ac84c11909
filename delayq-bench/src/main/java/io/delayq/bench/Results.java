package io.delayq.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Everything one run measured, scenario by scenario; the report, the targets and the plots are all
 * computed from this. A figure that could not be measured is NaN, and its row's note says why.
 */
public final class Results {
  Ceiling.Result ceiling;
  final List<EnqueueResult> enqueue = new ArrayList<>();
  final List<DrainResult> drain = new ArrayList<>();
  final List<SteadyResult> steady = new ArrayList<>();
  final List<IdleResult> idle = new ArrayList<>();
  final List<MemoryResult> memory = new ArrayList<>();
  /** delayq's idempotency window, measured apart from the contenders' tables; {@code null} until run. */
  IdempotencyResult idempotency;
  final List<DrainResult> backlog = new ArrayList<>();
  final List<DrainResult> partitions = new ArrayList<>();
  final List<ClusterResult> cluster = new ArrayList<>();
  final List<DurableResult> durable = new ArrayList<>();
  final List<HttpResult> http = new ArrayList<>();
  final List<RabbitResult> rabbitmq = new ArrayList<>();
  /** The broker of the RabbitMQ scenario and its version, once it ran. */
  String rabbitmqUrl;
  String rabbitmqVersion;

  /**
   * One publisher of the RabbitMQ scenario: the same messages, the same window of unconfirmed
   * publishes, to a fresh queue.
   *
   * @param publisher {@link RabbitScenario#FORWARDER} or {@link RabbitScenario#BARE}
   * @param perSecond messages confirmed per second (for the forwarder: also recorded as done in
   *     delayq), NaN when not run
   * @param integrity what the queue received, counted by messageId
   */
  record RabbitResult(String publisher, int messages, int window, double perSecond, Integrity integrity,
      String note) {}

  /**
   * One contender's enqueue runs.
   *
   * @param syncPerSecond jobs/s with the plain synchronous call from one thread
   * @param bulkPerSecond jobs/s with the bulk call from one thread
   * @param integrity both runs together: jobs missing from, or extra in, Redis afterwards
   */
  record EnqueueResult(String contender, int jobs, double syncPerSecond, double bulkPerSecond,
      Integrity integrity, String note) {}

  /**
   * Due jobs dispatched by workers started after they were all due: the drain scenario, each
   * backlog size and each partition count.
   *
   * @param partitions delayq's partition count (1 for the others)
   * @param backlog pending jobs not yet due while these were dispatched
   * @param backlogLoadSeconds how long loading the backlog took (0 without one)
   * @param perSecond distinct jobs delivered per second, from worker start to the last first
   *     delivery; NaN when not run, with the reason in the note
   * @param integrity of the due jobs; {@code unexpected} counts backlog jobs delivered before their time
   * @param redis Redis counters over the same span, or {@code null}
   */
  record DrainResult(String contender, int jobs, int partitions, int backlog, double backlogLoadSeconds,
      double perSecond, Integrity integrity, RedisStats.Delta redis, String note) {

    static DrainResult notRun(String contender, int jobs, int partitions, int backlog, String why) {
      return new DrainResult(contender, jobs, partitions, backlog, Double.NaN, Double.NaN, null, null, why);
    }
  }

  /**
   * Jobs scheduled at a steady rate, each due shortly after.
   *
   * @param achievedRate jobs/s the producer managed (the target rate, unless the contender's
   *     synchronous call is slower)
   * @param lateness handler start minus due time
   * @param redis Redis counters from just before the first schedule to the last delivery
   */
  record SteadyResult(String contender, int jobs, double achievedRate, Lateness lateness,
      Integrity integrity, RedisStats.Delta redis, String note) {
    double commandsPerJob() {
      return redis == null ? Double.NaN : (double) redis.commands() / jobs;
    }
  }

  /**
   * Workers running on an empty queue.
   *
   * @param commandsPerSecond {@code total_commands_processed} delta per second
   * @param cpuPercentOfCore the benchmark JVM's process CPU time over the span, as % of one core
   */
  record IdleResult(String contender, double seconds, double commandsPerSecond, double cpuPercentOfCore,
      Integrity integrity, String note) {}

  /**
   * {@code used_memory} growth per pending job.
   *
   * @param loadSeconds how long loading them took, with the bulk call from several threads
   */
  record MemoryResult(String contender, int jobs, double bytesPerJob, double loadSeconds, Integrity integrity,
      String note) {}

  /**
   * What the idempotency window costs Redis: the same due jobs drained twice by delayq, each time on
   * an emptied Redis, with the default window and with {@code idempotencyWindow(Duration.ZERO)}.
   *
   * @param jobs jobs drained, and so ids finished, in each run
   * @param window the default window the first run has
   * @param usedMemoryOn {@code used_memory} once every job of the run with the window was acked and its
   *     clients had closed, minus before the load; NaN when not measured
   * @param usedMemoryOff the same for the run without the window
   * @param doneSetBytes {@code MEMORY USAGE ... SAMPLES 0} of the window's id sets after the run with
   *     it, summed; NaN when not measured
   * @param idsHeld how many ids those sets held then ({@code SCARD}, summed); -1 when not measured
   * @param on the drain with the window, as in the drain scenario; {@code null} when not run
   * @param off the drain without it; {@code null} when not run
   */
  record IdempotencyResult(int jobs, Duration window, double usedMemoryOn, double usedMemoryOff,
      double doneSetBytes, long idsHeld, DrainResult on, DrainResult off, String note) {

    static IdempotencyResult notRun(int jobs, Duration window, String why) {
      return new IdempotencyResult(jobs, window, Double.NaN, Double.NaN, Double.NaN, -1, null, null, why);
    }

    /** The headline figure: {@code used_memory} with the window minus without it, per finished id. */
    double bytesPerFinishedId() {
      return (usedMemoryOn - usedMemoryOff) / jobs;
    }

    /** The window's id sets' own size per finished id ({@code MEMORY USAGE}). */
    double doneSetBytesPerId() {
      return doneSetBytes / jobs;
    }
  }

  /** What a cluster scenario run measured. */
  enum ClusterMeasure {
    /** Bulk enqueue, as in the enqueue scenario's bulk run: jobs/s. */
    ENQUEUE,
    /** Drain, as in the drain scenario: jobs/s. */
    DRAIN
  }

  /**
   * One cell of the cluster scenario: delayq's bulk enqueue or drain, on one topology, at one
   * partition count.
   *
   * @param topology {@link ClusterScenario#SINGLE_NODE} or {@link ClusterScenario#CLUSTER}
   * @param perSecond jobs/s; NaN when not run, with the reason in the note
   * @param integrity as in the enqueue or drain scenario, or {@code null} when not run
   * @param partitionsPerMaster how many of the queue's partitions each master serves, e.g. {@code 6/5/5};
   *     empty on the single node
   */
  record ClusterResult(String topology, ClusterMeasure measure, int partitions, int jobs, double perSecond,
      Integrity integrity, String partitionsPerMaster, String note) {

    static ClusterResult notRun(String topology, ClusterMeasure measure, int partitions, int jobs, String why) {
      return new ClusterResult(topology, measure, partitions, jobs, Double.NaN, null, "", why);
    }
  }

  /**
   * One mode of the durable scenario: delayq's enqueue on a primary with one replica, without or
   * with {@code waitForReplicas}.
   *
   * @param mode {@link DurableScenario#PLAIN} or {@link DurableScenario#DURABLE}
   * @param oneJobs jobs scheduled one at a time
   * @param onePerSecond jobs/s with {@code schedule}, one job per call, from one thread; NaN when not run
   * @param bulkJobs jobs scheduled with the bulk call
   * @param bulkPerSecond jobs/s with {@code scheduleAll} in chunks, from one thread; NaN when not run
   * @param integrity both runs together: jobs missing from, or extra in, Redis afterwards; {@code null}
   *     when neither ran
   */
  record DurableResult(String mode, int oneJobs, double onePerSecond, int bulkJobs, double bulkPerSecond,
      Integrity integrity, String note) {

    static DurableResult notRun(String mode, int oneJobs, int bulkJobs, String why) {
      return new DurableResult(mode, oneJobs, Double.NaN, bulkJobs, Double.NaN, null, why);
    }
  }

  /**
   * One way of settling in the HTTP scenario: delayq-server run as its own process, driven over
   * HTTP by long-polling workers while idle keep-alive connections are held open.
   *
   * @param settling how workers settled what they claimed: {@code settle} (one call per claim answer)
   *     or {@code per-job ack}
   * @param drainJobs jobs loaded due, then drained
   * @param schedulePerSecond jobs/s of that load through {@code jobs:batch} from one connection; NaN when not run
   * @param drainPerSecond jobs/s the workers received, from their start to the last job's first receipt
   * @param steadyJobs jobs scheduled at the steady rate
   * @param offeredPerSecond jobs/s the steady producer managed
   * @param lateness of the steady jobs: the worker's receipt minus the job's runAt; {@code null} when not run
   * @param integrity the drain and the steady jobs together
   * @param settleErrors settle elements (or acks) not answered 204
   * @param serverConnections ESTABLISHED TCP connections on the server's port mid-way through the
   *     steady run; -1 when not counted
   * @param idleOpenAtEnd idle connections that still answered {@code GET /health} after the steady run
   */
  record HttpResult(String settling, int drainJobs, double schedulePerSecond, double drainPerSecond,
      int steadyJobs, double offeredPerSecond, Lateness lateness, Integrity integrity, long settleErrors,
      int serverConnections, int idleOpenAtEnd, String note) {

    static HttpResult notRun(String settling, int drainJobs, int steadyJobs, String why) {
      return new HttpResult(settling, drainJobs, Double.NaN, Double.NaN, steadyJobs, Double.NaN, null, null, 0, -1,
          -1, why);
    }
  }

  static <T> Optional<T> find(List<T> list, Predicate<T> which) {
    return list.stream().filter(which).findFirst();
  }
}
