package io.delayq.internal;

import io.delayq.WorkerProcess;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This client's heartbeat in Redis, written every interval while it runs at least one worker pool
 * or forwarder, and deleted when the last one stops or the client closes. The entry, a hash with a
 * time to live of {@value #TTL_INTERVALS} intervals, lets any client list the live worker processes
 * (see {@code lua/heartbeat.lua}); a process that crashes drops out once its entry expires.
 */
final class Heartbeat implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Heartbeat.class);
  static final int TTL_INTERVALS = 3;
  /** Most processes a listing reads; one entry per live process, so far more than any deployment. */
  static final int MAX_LISTED = 10_000;
  private static final String FORMAT = "1";
  /** Whether a live-process set of another type was reported, so that a dashboard polling it does not log each time. */
  private static final AtomicBoolean foreignSeenLogged = new AtomicBoolean();

  private final DelayqClient client;
  private final ProcessIdentity identity;
  private final Duration interval;
  private final RedisClock clock;
  private final byte[] seenKey = Keys.bytes(Keys.workersSeen());
  private final byte[] ownKey;
  private final AtomicBoolean failing = new AtomicBoolean();
  private ScheduledExecutorService timer;
  private ScheduledFuture<?> beating;
  private int workers;
  private boolean closed;
  /** Test seam: a process that stops writing without deleting its entry, as a crashed one does. */
  private volatile boolean suspended;
  /** Whether heartbeats are wanted now; read and written under {@link #writeLock} by writers. */
  private volatile boolean active;
  /** why: a write still in flight when the last pool stops must not land after the delete */
  private final Object writeLock = new Object();

  Heartbeat(DelayqClient client, ProcessIdentity identity, Duration interval, RedisClock clock) {
    this.client = client;
    this.identity = identity;
    this.interval = interval;
    this.clock = clock;
    this.ownKey = Keys.bytes(Keys.workerProcess(identity.id()));
  }

  /** A worker pool or forwarder started: heartbeats begin with the first. */
  synchronized void workStarted() {
    workers++;
    if (closed || beating != null) {
      return;
    }
    active = true;
    if (timer == null) {
      timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "delayq-heartbeat");
        t.setDaemon(true);
        return t;
      });
    }
    beating = timer.scheduleWithFixedDelay(this::beatQuietly, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** A worker pool or forwarder stopped: with the last one, the entry is deleted at once. */
  void workStopped() {
    synchronized (this) {
      workers = Math.max(0, workers - 1);
      if (workers > 0 || beating == null) {
        return;
      }
      beating.cancel(false);
      beating = null;
      active = false;
    }
    delete();
  }

  /** Stops heartbeating for good and deletes the entry. */
  @Override
  public void close() {
    boolean hadEntry;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      hadEntry = beating != null;
      active = false;
      if (beating != null) {
        beating.cancel(false);
        beating = null;
      }
      if (timer != null) {
        timer.shutdown();
      }
    }
    if (hadEntry) {
      delete();
    }
  }

  /** Test seam: stops writing, leaving the entry to expire as a crashed process's would. */
  void suspend() {
    suspended = true;
  }

  private void beatQuietly() {
    synchronized (writeLock) {
      if (active && !suspended) {
        beatNow();
      }
    }
  }

  private void beatNow() {
    try {
      long sent = clock.wallMillis();
      Long seen = client.await(beat(), null, null, 0);
      clock.observe(seen, sent, clock.wallMillis());
      if (failing.getAndSet(false)) {
        log.info("heartbeat of process {} written to {} again", identity.id(), client.displayUri());
      }
    } catch (RuntimeException e) {
      // why: an outage must neither stop the workers nor log once per interval
      if (!failing.getAndSet(true)) {
        log.warn("cannot write the heartbeat of process {} to {} (logged once until it works again): {}",
            identity.id(), client.displayUri(), e.toString());
      }
    }
  }

  private CompletableFuture<Long> beat() {
    List<byte[]> args = new ArrayList<>();
    args.add(ServerTime.IN_SCRIPT);
    args.add(Keys.bytes(identity.id()));
    args.add(QueueContext.number(interval.toMillis() * TTL_INTERVALS));
    field(args, "v", FORMAT);
    field(args, "host", identity.host());
    field(args, "pid", Long.toString(identity.pid()));
    field(args, "version", identity.version());
    field(args, "started", Long.toString(identity.startedAt().toEpochMilli()));
    field(args, "q", encode(client.queueWork()));
    return client.scripts().run(Script.HEARTBEAT, new byte[][] {seenKey, ownKey}, args.toArray(byte[][]::new));
  }

  private static void field(List<byte[]> args, String name, String value) {
    args.add(Keys.bytes(name));
    args.add(Keys.bytes(value));
  }

  private void delete() {
    synchronized (writeLock) {
      if (active) {
        return; // a pool started again meanwhile
      }
      deleteNow();
    }
  }

  private void deleteNow() {
    try {
      var redis = client.async();
      CompletableFuture<Long> removed = redis.zrem(seenKey, Keys.bytes(identity.id())).toCompletableFuture();
      CompletableFuture<Long> deleted = redis.del(ownKey).toCompletableFuture();
      client.await(CompletableFuture.allOf(removed, deleted), null, null, 0);
    } catch (RuntimeException e) {
      log.debug("cannot delete the heartbeat of process {}; it expires by itself: {}", identity.id(), e.toString());
    }
  }

  /** Queue names never hold ',' or ';' (see Rules), so the list needs no escaping. */
  static String encode(List<WorkerProcess.QueueWork> work) {
    StringBuilder out = new StringBuilder();
    for (WorkerProcess.QueueWork w : work) {
      if (out.length() > 0) {
        out.append(';');
      }
      out.append(w.queue()).append(',').append(w.concurrency()).append(',').append(w.inFlight());
    }
    return out.toString();
  }

  static List<WorkerProcess.QueueWork> decodeQueues(String text) {
    List<WorkerProcess.QueueWork> work = new ArrayList<>();
    if (text.isEmpty()) {
      return work;
    }
    for (String entry : text.split(";", -1)) {
      String[] parts = entry.split(",", -1);
      if (parts.length != 3 || parts[0].isEmpty()) {
        throw new IllegalArgumentException("queue entry '" + entry + "' is not <queue>,<concurrency>,<inFlight>");
      }
      work.add(new WorkerProcess.QueueWork(parts[0], Integer.parseInt(parts[1]), Integer.parseInt(parts[2])));
    }
    work.sort(Comparator.comparing(WorkerProcess.QueueWork::queue));
    return work;
  }

  /** The live processes, from any client: one script for the ids, then one pipelined read of their entries. */
  static List<WorkerProcess> list(DelayqClient client) {
    byte[][] keys = {Keys.bytes(Keys.workersSeen())};
    byte[][] args = {ServerTime.IN_SCRIPT, QueueContext.number(MAX_LISTED)};
    List<Object> reply = client.await(client.scripts().<List<Object>>run(Script.WORKERS, keys, args), null, null, 0);
    if (reply.get(0) instanceof Long status && status < 0) {
      if (!foreignSeenLogged.getAndSet(true)) {
        log.warn("{} is a {}, not delayq's sorted set of live worker processes; no process is listed until the next"
            + " heartbeat replaces it (logged once until it is a sorted set again)", Keys.workersSeen(),
            QueueContext.text(reply.get(1)));
      }
      return List.of();
    }
    foreignSeenLogged.set(false);
    List<String> ids = new ArrayList<>();
    for (int i = 1; i < reply.size(); i++) {
      ids.add(QueueContext.text(reply.get(i)));
    }
    var redis = client.async();
    List<CompletableFuture<Map<byte[], byte[]>>> entries = new ArrayList<>(ids.size());
    for (String id : ids) {
      entries.add(redis.hgetall(Keys.bytes(Keys.workerProcess(id))).toCompletableFuture());
    }
    List<WorkerProcess> processes = new ArrayList<>();
    for (int i = 0; i < ids.size(); i++) {
      Map<byte[], byte[]> raw;
      try {
        raw = client.await(entries.get(i), null, null, 0);
      } catch (io.delayq.RedisCommandException e) {
        log.debug("heartbeat entry of '{}' is not a hash (another program's?); skipped: {}", ids.get(i), e.toString());
        continue;
      }
      if (raw == null || raw.isEmpty()) {
        continue; // expired between the two reads
      }
      try {
        processes.add(parse(ids.get(i), raw));
      } catch (RuntimeException e) {
        log.debug("heartbeat entry of '{}' does not parse; skipped: {}", ids.get(i), e.toString());
      }
    }
    processes.sort(Comparator.comparing(WorkerProcess::host).thenComparingLong(WorkerProcess::pid)
        .thenComparing(WorkerProcess::id));
    return processes;
  }

  static WorkerProcess parse(String id, Map<byte[], byte[]> raw) {
    Map<String, String> fields = new HashMap<>();
    raw.forEach((k, v) -> fields.put(new String(k, StandardCharsets.UTF_8), new String(v, StandardCharsets.UTF_8)));
    if (!FORMAT.equals(fields.get("v"))) {
      throw new IllegalArgumentException("format '" + fields.get("v") + "' is not " + FORMAT);
    }
    return new WorkerProcess(
        id,
        required(fields, "host"),
        Long.parseLong(required(fields, "pid")),
        required(fields, "version"),
        Instant.ofEpochMilli(Long.parseLong(required(fields, "started"))),
        Instant.ofEpochMilli(Long.parseLong(required(fields, "seen"))),
        decodeQueues(required(fields, "q")));
  }

  private static String required(Map<String, String> fields, String name) {
    String value = fields.get(name);
    if (value == null) {
      throw new IllegalArgumentException("field '" + name + "' is missing");
    }
    return value;
  }

  /** One entry per queue: the concurrency and in-flight jobs of every pool of that queue, summed. */
  static List<WorkerProcess.QueueWork> summarize(List<WorkerProcess.QueueWork> perPool) {
    Map<String, int[]> byQueue = new TreeMap<>();
    for (WorkerProcess.QueueWork w : perPool) {
      int[] sums = byQueue.computeIfAbsent(w.queue(), q -> new int[2]);
      sums[0] += w.concurrency();
      sums[1] += w.inFlight();
    }
    List<WorkerProcess.QueueWork> out = new ArrayList<>(byQueue.size());
    byQueue.forEach((q, sums) -> out.add(new WorkerProcess.QueueWork(q, sums[0], sums[1])));
    return out;
  }
}
