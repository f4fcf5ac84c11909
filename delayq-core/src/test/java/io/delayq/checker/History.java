package io.delayq.checker;

import io.delayq.DuplicatePolicy;
import io.delayq.JobState;
import io.delayq.ScheduledJob;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Everything the recorder saw during one run: the calls made (with their local start and end by
 * {@link System#nanoTime()}, and their result or exception), every delivery a test thread or a
 * handler got (with the Redis time of its claim, read off {@code leaseUntil - lease}), the worker
 * pools, and the state of every id at the end. The recorder only writes; {@link Checker} only
 * reads, so a history can be copied and mutated for the negative control.
 *
 * <p>Records are filled by the thread that makes the call and published when complete (added
 * under the history's lock), so the checker, which runs after every thread has stopped, sees them
 * whole.
 */
final class History {
  /** What a call did, as far as its caller can tell. */
  enum Outcome {
    /** It took effect (a schedule CREATED or REPLACED, or KEPT; an ack, nack, extension or release accepted). */
    OK,
    /** Refused without effect: a lease that is not held, a job that is active or not found. */
    REFUSED,
    /** Timed out or failed in flight: may or may not have taken effect, at any time after it started. */
    UNKNOWN,
    /**
     * delayq said it failed without effect ({@code RedisUnavailableException}: refused before it reached
     * Redis). The model still treats it as possibly run, so that no other check leans on that claim;
     * a check of its own holds delayq to it where the history can tell.
     */
    FAILED
  }

  enum Kind {
    SCHEDULE,
    RESCHEDULE,
    CANCEL,
    GET,
    STATS,
    CLAIM,
    ACK,
    NACK,
    EXTEND,
    RELEASE,
    POOL_START,
    POOL_CLOSE,
    CLIENT_OPEN,
    CLIENT_CLOSE
  }

  /** Who got a delivery: a pull claim of a test thread, a chaos worker's handler, the drain worker's handler. */
  enum Source {
    PULL,
    WORKER,
    DRAIN
  }

  /** One call. Fields that do not apply to its kind keep their defaults. */
  static final class Op {
    int seq;
    Kind kind;
    int client = -1;
    String thread;
    long start;
    long end;
    Outcome outcome;
    /** The exception's class and message, or a note. */
    String detail;
    String id;

    // SCHEDULE
    String payload;
    long delayMs = -1;
    DuplicatePolicy policy;
    int maxAttempts;
    ScheduledJob.Outcome scheduled;
    /** The due time Redis answered (SCHEDULE CREATED/REPLACED/KEPT-with-time, RESCHEDULE); -1 when none. */
    long runAtMs = -1;
    /** Requests of the same scheduleAll share a batch number; 0 for a single schedule. */
    int batch;

    // ACK, NACK, EXTEND, RELEASE: the delivery whose token the call carried
    int delivery = -1;
    long token;
    /** EXTEND: the lease asked for. */
    long leaseMs;
    /** EXTEND accepted: the new deadline Redis answered. */
    long untilMs = -1;
    /** NACK: the retry delay asked for; the state answered. */
    long retryMs = -1;
    JobState nackState;

    // CLAIM: the deliveries it returned
    List<Integer> deliveries = new ArrayList<>();
    int max;

    // POOL_START, POOL_CLOSE
    int pool = -1;

    Op copy() {
      Op o = new Op();
      o.seq = seq;
      o.kind = kind;
      o.client = client;
      o.thread = thread;
      o.start = start;
      o.end = end;
      o.outcome = outcome;
      o.detail = detail;
      o.id = id;
      o.payload = payload;
      o.delayMs = delayMs;
      o.policy = policy;
      o.maxAttempts = maxAttempts;
      o.scheduled = scheduled;
      o.runAtMs = runAtMs;
      o.batch = batch;
      o.delivery = delivery;
      o.token = token;
      o.leaseMs = leaseMs;
      o.untilMs = untilMs;
      o.retryMs = retryMs;
      o.nackState = nackState;
      o.deliveries = new ArrayList<>(deliveries);
      o.max = max;
      o.pool = pool;
      return o;
    }

    /** For SCHEDULE and RESCHEDULE that took effect with a delay: the Redis ms at which the script ran. */
    long execMs() {
      return runAtMs - delayMs;
    }

    /** An UNKNOWN or FAILED call: the model allows it to have run at any time after it started. */
    boolean mayHaveRun() {
      return outcome == Outcome.UNKNOWN || outcome == Outcome.FAILED;
    }

    boolean wrote() {
      return kind == Kind.SCHEDULE
          && outcome == Outcome.OK
          && (scheduled == ScheduledJob.Outcome.CREATED || scheduled == ScheduledJob.Outcome.REPLACED);
    }

    @Override
    public String toString() {
      StringBuilder s = new StringBuilder();
      s.append('#').append(seq).append(' ').append(kind);
      if (id != null) {
        s.append(" id=").append(id);
      }
      switch (kind) {
        case SCHEDULE -> s.append(" payload=").append(payload).append(" delay=").append(delayMs).append("ms ")
            .append(policy).append(" max=").append(maxAttempts)
            .append(batch != 0 ? " batch=" + batch : "")
            .append(" -> ").append(outcome).append(scheduled != null ? " " + scheduled : "")
            .append(runAtMs >= 0 ? " runAt=" + runAtMs + " (redis now " + (outcome == Outcome.OK && delayMs >= 0 && wrote() ? execMs() : "?") + ")" : "");
        case RESCHEDULE -> s.append(" delay=").append(delayMs).append("ms -> ").append(outcome)
            .append(runAtMs >= 0 ? " runAt=" + runAtMs + " (redis now " + execMs() + ")" : "");
        case ACK, RELEASE -> s.append(" token=").append(token).append(" (delivery #").append(delivery).append(") -> ").append(outcome);
        case NACK -> s.append(" token=").append(token).append(" (delivery #").append(delivery).append(") retry=")
            .append(retryMs).append("ms -> ").append(outcome).append(nackState != null ? " " + nackState : "");
        case EXTEND -> s.append(" token=").append(token).append(" (delivery #").append(delivery).append(") lease=")
            .append(leaseMs).append("ms -> ").append(outcome)
            .append(untilMs >= 0 ? " until=" + untilMs + " (redis now " + (untilMs - leaseMs) + ")" : "");
        case CLAIM -> s.append(" max=").append(max).append(" lease=").append(leaseMs).append("ms -> ").append(outcome)
            .append(" deliveries=").append(deliveries);
        case POOL_START, POOL_CLOSE -> s.append(" pool=").append(pool).append(" -> ").append(outcome);
        default -> s.append(" -> ").append(outcome);
      }
      s.append(" client=").append(client).append(" [").append(start).append("..").append(end).append("ns]");
      if (detail != null) {
        s.append(" (").append(detail).append(')');
      }
      return s.toString();
    }
  }

  /** One delivery of a job, as its receiver saw it. */
  static final class Delivered {
    int seq;
    Source source;
    int client = -1;
    int pool = -1;
    int claimOp = -1;
    String id;
    long token;
    int attempt;
    int maxAttempts;
    String payload;
    long runAtMs;
    /** Redis ms of the claim script: {@code leaseUntil - lease} at the time of delivery. */
    long claimMs;
    long leaseMs;
    /**
     * Local nanos before which the claim had not run: the pull claim call's start; {@link Long#MIN_VALUE} for
     * workers (their claim loop's call is not visible).
     */
    long claimStart = Long.MIN_VALUE;
    /** Local nanos by which the claim had run: the pull claim call's end, or the handler's start. */
    long claimEnd;
    /** Handlers: when the handler returned or threw; {@link Long#MAX_VALUE} while it runs. */
    long handlerEnd = Long.MAX_VALUE;
    boolean handlerThrew;
    String handlerAction;
    /**
     * The claim time could not be read for sure: the handler started after its pool began to close, so the
     * lease keeper may already have extended {@code leaseUntil}.
     */
    boolean claimTimeUncertain;

    Delivered copy() {
      Delivered d = new Delivered();
      d.seq = seq;
      d.source = source;
      d.client = client;
      d.pool = pool;
      d.claimOp = claimOp;
      d.id = id;
      d.token = token;
      d.attempt = attempt;
      d.maxAttempts = maxAttempts;
      d.payload = payload;
      d.runAtMs = runAtMs;
      d.claimMs = claimMs;
      d.leaseMs = leaseMs;
      d.claimStart = claimStart;
      d.claimEnd = claimEnd;
      d.handlerEnd = handlerEnd;
      d.handlerThrew = handlerThrew;
      d.handlerAction = handlerAction;
      d.claimTimeUncertain = claimTimeUncertain;
      return d;
    }

    boolean isHandler() {
      return source != Source.PULL;
    }

    @Override
    public String toString() {
      return "#" + seq + " DELIVERY(" + source + ") id=" + id + " token=" + token + " attempt=" + attempt + "/"
          + maxAttempts + " payload=" + payload + " runAt=" + runAtMs + " claimed(redis)=" + claimMs + " lease="
          + leaseMs + "ms until=" + (claimMs + leaseMs) + (claimTimeUncertain ? " (claim time uncertain)" : "")
          + " client=" + client + (pool >= 0 ? " pool=" + pool : "") + (claimOp >= 0 ? " claimOp=#" + claimOp : "")
          + " [" + (claimStart == Long.MIN_VALUE ? "?" : Long.toString(claimStart)) + ".." + claimEnd + "ns]"
          + (isHandler() ? " handler " + handlerAction + (handlerThrew ? " threw" : " returned") + " at "
              + (handlerEnd == Long.MAX_VALUE ? "never" : handlerEnd + "ns") : "");
    }
  }

  /** A worker pool: its lease, and when it began and finished closing. */
  static final class Pool {
    int seq;
    int client;
    long leaseMs;
    long shutdownTimeoutMs;
    int concurrency;
    volatile long closeStart = Long.MAX_VALUE;
    volatile long closeEnd = Long.MAX_VALUE;
    boolean drain;
    /** Whether its client waits only a few ms for Redis: its links drop, so its keeper may fail to extend in time. */
    boolean impatient;

    Pool copy() {
      Pool p = new Pool();
      p.seq = seq;
      p.client = client;
      p.leaseMs = leaseMs;
      p.shutdownTimeoutMs = shutdownTimeoutMs;
      p.concurrency = concurrency;
      p.closeStart = closeStart;
      p.closeEnd = closeEnd;
      p.drain = drain;
      p.impatient = impatient;
      return p;
    }

    @Override
    public String toString() {
      return "#" + seq + " POOL client=" + client + " lease=" + leaseMs + "ms shutdownTimeout=" + shutdownTimeoutMs
          + "ms concurrency=" + concurrency + (drain ? " (drain)" : "") + (impatient ? " (impatient client)" : "")
          + " close=[" + closeStart + ".." + closeEnd + "ns]";
    }
  }

  /**
   * One id at the end, after the drain: what {@code get} answered, and where its keys are in Redis
   * (read directly, every partition), to check that it is in exactly one state.
   */
  static final class Final {
    String id;
    /** null when get() answered empty. */
    JobState state;
    String payload;
    int attempts;
    int maxAttempts;
    /** Raw membership, summed over the partitions. */
    int inScheduled;
    int inActive;
    int inDead;
    int records;
    int leaseEntries;
    /** Partitions holding any trace of the id, and the one its hash names. */
    List<Integer> partitionsWithTraces = new ArrayList<>();
    int homePartition;

    Final copy() {
      Final f = new Final();
      f.id = id;
      f.state = state;
      f.payload = payload;
      f.attempts = attempts;
      f.maxAttempts = maxAttempts;
      f.inScheduled = inScheduled;
      f.inActive = inActive;
      f.inDead = inDead;
      f.records = records;
      f.leaseEntries = leaseEntries;
      f.partitionsWithTraces = new ArrayList<>(partitionsWithTraces);
      f.homePartition = homePartition;
      return f;
    }

    @Override
    public String toString() {
      return "FINAL id=" + id + " get=" + (state == null ? "absent" : state + " payload=" + payload + " attempts="
          + attempts + "/" + maxAttempts) + " raw{scheduled=" + inScheduled + ", active=" + inActive + ", dead="
          + inDead + ", record=" + records + ", lease=" + leaseEntries + ", partitions=" + partitionsWithTraces
          + ", home=" + homePartition + "}";
    }
  }

  private final AtomicInteger seqs = new AtomicInteger();
  private final List<Op> ops = new ArrayList<>();
  private final List<Delivered> deliveries = new ArrayList<>();
  private final List<Pool> pools = new ArrayList<>();
  private final Map<String, Final> finals = new LinkedHashMap<>();
  final String label;
  final long seed;
  /** Whether the run got as far as the drain and the final reads (the end-state checks need them). */
  volatile boolean drained;
  /** Exceptions a call threw that delayq's API does not name; they are recorded as UNKNOWN. */
  final List<String> unexpected = Collections.synchronizedList(new ArrayList<>());

  History(String label, long seed) {
    this.label = label;
    this.seed = seed;
  }

  int nextSeq() {
    return seqs.incrementAndGet();
  }

  Op begin(Kind kind, int client) {
    Op op = new Op();
    op.seq = nextSeq();
    op.kind = kind;
    op.client = client;
    op.thread = Thread.currentThread().getName();
    op.start = System.nanoTime();
    return op;
  }

  void add(Op op) {
    synchronized (this) {
      ops.add(op);
    }
  }

  void add(Delivered d) {
    synchronized (this) {
      deliveries.add(d);
    }
  }

  void add(Pool p) {
    synchronized (this) {
      pools.add(p);
    }
  }

  void putFinal(Final f) {
    synchronized (this) {
      finals.put(f.id, f);
    }
  }

  synchronized List<Op> ops() {
    List<Op> copy = new ArrayList<>(ops);
    copy.sort(Comparator.comparingInt(o -> o.seq));
    return copy;
  }

  synchronized List<Delivered> deliveries() {
    List<Delivered> copy = new ArrayList<>(deliveries);
    copy.sort(Comparator.comparingInt(d -> d.seq));
    return copy;
  }

  synchronized List<Pool> pools() {
    return new ArrayList<>(pools);
  }

  synchronized Map<String, Final> finals() {
    return new LinkedHashMap<>(finals);
  }

  /** A deep copy, for the negative control to mutate. */
  synchronized History copy() {
    History h = new History(label + "(copy)", seed);
    h.seqs.set(seqs.get());
    ops.forEach(o -> h.ops.add(o.copy()));
    deliveries.forEach(d -> h.deliveries.add(d.copy()));
    pools.forEach(p -> h.pools.add(p.copy()));
    finals.forEach((k, v) -> h.finals.put(k, v.copy()));
    h.drained = drained;
    h.unexpected.addAll(unexpected);
    return h;
  }

  /** Removes records (by seq), for the negative control. */
  synchronized void removeIf(java.util.function.IntPredicate seqMatches) {
    ops.removeIf(o -> seqMatches.test(o.seq));
    deliveries.removeIf(d -> seqMatches.test(d.seq));
  }

}
