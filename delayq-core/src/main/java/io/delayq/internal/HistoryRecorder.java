package io.delayq.internal;

import io.delayq.HistoryBucket;
import io.delayq.Lateness;
import java.time.Duration;
import java.time.Instant;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;
import java.util.function.LongFunction;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client's share of the history in Redis: what happens to each queue's jobs is counted in memory,
 * per queue and for all queues, by the Redis-clock minute it happened in, and added to the minute
 * and hour buckets every flush interval (pipelined, at most {@value #WRITES_PER_ROUND} scripts per
 * round trip; see {@code lua/history-add.lua}) and at close.
 *
 * <p>Each drained minute becomes a numbered batch, sent until Redis confirms it: a batch whose
 * outcome is unknown (a timeout) is sent again unchanged, and the script applies each number once,
 * so counts are never added twice; counts gathered meanwhile wait for the next batch of that minute.
 * What memory holds is bounded: a queue with nothing pending after a flush is dropped, minutes older
 * than {@value #MINUTES_KEPT} minutes that could not be written (a long outage) are dropped with a
 * warning, and at most {@value #MAX_QUEUES} queues are counted at once.
 */
final class HistoryRecorder implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(HistoryRecorder.class);
  /** Minutes a drained, idle entry is kept before it is dropped, so the current minute is not made anew each event. */
  private static final long IDLE_MINUTES_KEPT = 2;
  /** Most minutes of counts kept per queue while Redis does not take them. */
  static final int MINUTES_KEPT = 60;
  /** Most queues with counts in memory at once; counts of further queues are dropped until some are written. */
  static final int MAX_QUEUES = 10_000;
  /** Most scripts sent in one pipelined round trip, so a flush after a long outage does not flood Redis. */
  static final int WRITES_PER_ROUND = 1_000;
  /** How long a deleted queue's history stays unwritable: past what any client keeps, with room for clocks. */
  static final long DELETED_MARK_MILLIS = Duration.ofMinutes(MINUTES_KEPT * 2L).toMillis();

  private final DelayqClient client;
  private final RedisClock clock;
  private final Duration flushInterval;
  private final boolean enabled;
  private final Map<String, Minutes> queues = new ConcurrentHashMap<>();
  private final Minutes all = new Minutes();
  private final AtomicBoolean failing = new AtomicBoolean();
  private final AtomicBoolean overQueueCap = new AtomicBoolean();
  private final AtomicLong droppedOld = new AtomicLong();
  private final AtomicLong droppedOverCap = new AtomicLong();
  /** why: each recorder its own marker, so two recorders of one process never take each other's batches for resends */
  private final byte[] marker = Keys.bytes("c:" + Long.toHexString(new SecureRandom().nextLong() | Long.MIN_VALUE));
  private final Object flushLock = new Object();
  /** The last batch number used; guarded by {@link #flushLock}. */
  private long batches;
  private ScheduledExecutorService timer;
  private boolean closed;

  HistoryRecorder(DelayqClient client, RedisClock clock, Duration flushInterval, boolean enabled) {
    this.client = client;
    this.clock = clock;
    this.flushInterval = flushInterval;
    this.enabled = enabled;
  }

  /** The recorder of {@code queue}'s events; {@link QueueMeters#NONE} with history off. */
  QueueMeters queue(String queue) {
    if (!enabled) {
      return QueueMeters.NONE;
    }
    startFlushing();
    return new QueueHistory(queue);
  }

  private synchronized void startFlushing() {
    if (timer != null || closed) {
      return;
    }
    timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "delayq-history");
      t.setDaemon(true);
      return t;
    });
    long every = flushInterval.toMillis();
    timer.scheduleWithFixedDelay(this::flushQuietly, every, every, TimeUnit.MILLISECONDS);
  }

  /** Drops this client's unflushed counts of a deleted queue. */
  void forget(String queue) {
    Minutes gone = queues.remove(queue);
    if (gone != null) {
      gone.retire();
    }
  }

  /** A last flush, then no more. */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      if (timer != null) {
        timer.shutdown();
      }
    }
    if (enabled) {
      flushQuietly();
    }
  }

  private void flushQuietly() {
    try {
      flush();
    } catch (RuntimeException e) {
      log.debug("history flush failed: {}", e.toString());
    }
  }

  /** Adds every count gathered so far to Redis; returns whether every write succeeded. */
  boolean flush() {
    synchronized (flushLock) {
      long nowMinute = HistoryFields.epochMinute(clock.nowMillis());
      List<Write> writes = new ArrayList<>();
      queues.forEach((queue, minutes) -> minutes.collect(writes, nowMinute, this::nextBatch, droppedOld,
          m -> Keys.historyMinute(queue, m), h -> Keys.historyHour(queue, h), Keys.historyDeleted(queue)));
      all.collect(writes, nowMinute, this::nextBatch, droppedOld, Keys::allHistoryMinute, Keys::allHistoryHour, null);
      Throwable failure = writes.isEmpty() ? null : send(writes);
      queues.forEach((queue, minutes) -> {
        if (minutes.retireIfEmpty()) {
          queues.remove(queue, minutes);
        }
      });
      if (queues.size() < MAX_QUEUES && overQueueCap.getAndSet(false)) {
        log.info("history counts of every queue are kept again ({} events of queues over the cap of {} were not"
            + " counted)", droppedOverCap.get(), MAX_QUEUES);
      }
      if (failure != null) {
        if (!failing.getAndSet(true)) {
          log.warn("cannot add this client's history counts to {}; they are kept for the next flush, up to {}"
              + " minutes' worth (logged once until it works again): {}", client.displayUri(), MINUTES_KEPT,
              failure.toString());
        }
        return false;
      }
      if (failing.getAndSet(false)) {
        long dropped = droppedOld.getAndSet(0);
        if (dropped > 0) {
          log.warn("history counts written to {} again; {} counts older than {} minutes could not be written"
              + " meanwhile and were dropped", client.displayUri(), dropped, MINUTES_KEPT);
        } else {
          log.info("history counts written to {} again", client.displayUri());
        }
      }
      return true;
    }
  }

  private long nextBatch() {
    return ++batches;
  }

  /**
   * Sends the writes in rounds of at most {@link #WRITES_PER_ROUND}, each confirmed one settled; stops
   * at the first round with a failure (Redis is likely away), leaving the rest for the next flush.
   */
  private Throwable send(List<Write> writes) {
    long sent = clock.wallMillis();
    CompletableFuture<Void> time;
    try {
      time = clock.refresh(client.async().time().toCompletableFuture(), sent);
    } catch (RuntimeException e) {
      time = CompletableFuture.completedFuture(null);
    }
    Throwable failure = null;
    long refused = 0;
    for (int from = 0; from < writes.size() && failure == null; from += WRITES_PER_ROUND) {
      List<Write> round = writes.subList(from, Math.min(writes.size(), from + WRITES_PER_ROUND));
      List<CompletableFuture<List<Object>>> replies = new ArrayList<>(round.size());
      for (Write w : round) {
        replies.add(send(w));
      }
      for (int i = 0; i < round.size(); i++) {
        try {
          List<Object> reply = client.await(replies.get(i), null, null, 0);
          refused += (Long) reply.get(1);
          round.get(i).confirmed();
        } catch (RuntimeException e) {
          // why: the outcome may be unknown; the same batch goes again, and the script applies it once
          failure = failure == null ? e : failure;
        }
      }
    }
    try {
      time.join();
    } catch (RuntimeException e) {
      log.debug("no server time with this history flush: {}", e.toString());
    }
    if (refused > 0) {
      log.debug("{} history increments were left out: their counter in a bucket is not an integer or would"
          + " overflow (another program's field)", refused);
    }
    return failure;
  }

  private CompletableFuture<List<Object>> send(Write w) {
    List<byte[]> args = new ArrayList<>();
    args.add(ServerTime.IN_SCRIPT);
    args.add(QueueContext.number(HistoryFields.MINUTE_TTL_MILLIS));
    args.add(QueueContext.number(HistoryFields.HOUR_TTL_MILLIS));
    args.add(marker);
    args.add(QueueContext.number(w.batch.number));
    args.addAll(HistoryCounts.arguments(w.batch.counts));
    byte[][] keys = w.deletedKey == null
        ? new byte[][] {Keys.bytes(w.minuteKey), Keys.bytes(w.hourKey)}
        : new byte[][] {Keys.bytes(w.minuteKey), Keys.bytes(w.hourKey), Keys.bytes(w.deletedKey)};
    try {
      return client.scripts().run(Script.HISTORY_ADD, keys, args.toArray(byte[][]::new));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** A numbered batch of one minute's drained counts, kept until Redis confirms it. */
  private record Batch(long minute, long number, long[] counts) {}

  /** A batch on its way to its two buckets; {@code deletedKey}, the queue's deletion mark, null for the all-queues history. */
  private record Write(Minutes owner, Batch batch, String minuteKey, String hourKey, String deletedKey) {
    void confirmed() {
      owner.confirmed(batch);
    }
  }

  /**
   * One queue's (or all queues') counts by minute, and the batches sent but not yet confirmed.
   * Events add under the read lock; a flush collects (and drops entries) under the write lock, so
   * no event lands in an entry being dropped.
   */
  static final class Minutes {
    private final Map<Long, HistoryCounts> byMinute = new ConcurrentHashMap<>();
    /** At most one per minute; touched only by flushes (under the recorder's flush lock). */
    private final Map<Long, Batch> unconfirmed = new HashMap<>();
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    /** Guarded by {@link #lock}: once set, events go to a fresh entry instead. */
    private boolean retired;

    /** Adds to the counts of {@code minute}; false if this entry was retired (use a fresh one). */
    boolean add(long minute, Consumer<HistoryCounts> adding) {
      lock.readLock().lock();
      try {
        if (retired) {
          return false;
        }
        HistoryCounts counts = byMinute.get(minute);
        adding.accept(counts != null ? counts : byMinute.computeIfAbsent(minute, m -> new HistoryCounts()));
        return true;
      } finally {
        lock.readLock().unlock();
      }
    }

    void collect(List<Write> writes, long nowMinute, LongSupplier numbers, AtomicLong dropped,
        LongFunction<String> minuteKey, LongFunction<String> hourKey, String deletedKey) {
      long tooOld = nowMinute - MINUTES_KEPT;
      lock.writeLock().lock();
      try {
        for (var it = unconfirmed.values().iterator(); it.hasNext(); ) {
          Batch b = it.next();
          if (b.minute < tooOld) {
            dropped.addAndGet(sum(b.counts));
            it.remove();
          } else {
            writes.add(write(b, minuteKey, hourKey, deletedKey));
          }
        }
        for (var it = byMinute.entrySet().iterator(); it.hasNext(); ) {
          Map.Entry<Long, HistoryCounts> e = it.next();
          long minute = e.getKey();
          if (minute < tooOld) {
            // why: an outage must not grow memory without end; these counts could not be written in time
            long[] taken = e.getValue().drain();
            if (taken != null) {
              dropped.addAndGet(sum(taken));
            }
            it.remove();
            continue;
          }
          if (unconfirmed.containsKey(minute)) {
            continue; // new counts wait until the batch in doubt is settled
          }
          long[] taken = e.getValue().drain();
          if (taken == null) {
            if (minute < nowMinute - IDLE_MINUTES_KEPT) {
              it.remove();
            }
            continue;
          }
          Batch b = new Batch(minute, numbers.getAsLong(), taken);
          unconfirmed.put(minute, b);
          writes.add(write(b, minuteKey, hourKey, deletedKey));
        }
      } finally {
        lock.writeLock().unlock();
      }
    }

    private Write write(Batch b, LongFunction<String> minuteKey, LongFunction<String> hourKey, String deletedKey) {
      return new Write(this, b, minuteKey.apply(b.minute), hourKey.apply(HistoryFields.hourOfMinute(b.minute)),
          deletedKey);
    }

    void confirmed(Batch b) {
      unconfirmed.remove(b.minute, b);
    }

    /** Retires this entry if it holds nothing: no counts, no batch in doubt. */
    boolean retireIfEmpty() {
      lock.writeLock().lock();
      try {
        if (!retired && byMinute.isEmpty() && unconfirmed.isEmpty()) {
          retired = true;
        }
        return retired;
      } finally {
        lock.writeLock().unlock();
      }
    }

    void retire() {
      lock.writeLock().lock();
      try {
        retired = true;
      } finally {
        lock.writeLock().unlock();
      }
    }

    private static long sum(long[] counts) {
      long total = 0;
      for (long c : counts) {
        total += c;
      }
      return total;
    }
  }

  /** Counts one queue's events, and all queues' with them. */
  private final class QueueHistory implements QueueMeters {
    private final String queue;

    QueueHistory(String queue) {
      this.queue = queue;
    }

    private void record(Consumer<HistoryCounts> adding) {
      long minute = HistoryFields.epochMinute(clock.nowMillis());
      for (;;) {
        Minutes own = queues.get(queue);
        if (own == null) {
          if (queues.size() >= MAX_QUEUES) {
            droppedOverCap.incrementAndGet();
            if (!overQueueCap.getAndSet(true)) {
              log.warn("history counts of {} queues are waiting to be written to {}; events of further queues"
                  + " (first: '{}') are not counted per queue until some are (all-queues counts go on)",
                  MAX_QUEUES, client.displayUri(), queue);
            }
            break;
          }
          own = queues.computeIfAbsent(queue, q -> new Minutes());
        }
        if (own.add(minute, adding)) {
          break;
        }
        queues.remove(queue, own); // retired by a flush meanwhile: start a fresh entry
      }
      all.add(minute, adding);
    }

    private void count(int slot, long n) {
      if (n > 0) {
        record(counts -> counts.add(slot, n));
      }
    }

    @Override
    public void scheduled(int created, int replaced, int kept) {
      count(HistoryCounts.SCHEDULED, (long) created + replaced);
    }

    @Override
    public void delivered(long latenessMicros) {
      int bucket = Lateness.bucketOf(latenessMicros);
      record(counts -> {
        counts.add(HistoryCounts.DELIVERED, 1);
        counts.addLateness(bucket);
      });
    }

    @Override
    public void acked(int jobs) {
      count(HistoryCounts.ACKED, jobs);
    }

    @Override
    public void retried() {
      count(HistoryCounts.RETRIED, 1);
    }

    @Override
    public void redelivered(int jobs) {
      count(HistoryCounts.RETRIED, jobs);
    }

    @Override
    public void dead(int jobs) {
      count(HistoryCounts.DEAD, jobs);
    }
  }

  // ---- reading ----

  /** The last {@code count} buckets of one width, oldest first, read in one pipelined round trip. */
  static List<HistoryBucket> read(DelayqClient client, int count, Duration width, LongFunction<String> keyOf) {
    long widthMillis = width.toMillis();
    long current = Math.floorDiv(client.redisClock().nowMillis(), widthMillis);
    long first = HistoryFields.firstOf(current, count);
    var redis = client.async();
    List<CompletableFuture<Map<byte[], byte[]>>> replies = new ArrayList<>(count);
    for (long b = first; b <= current; b++) {
      replies.add(redis.hgetall(Keys.bytes(keyOf.apply(b))).toCompletableFuture());
    }
    List<HistoryBucket> buckets = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      Map<byte[], byte[]> raw;
      try {
        raw = client.await(replies.get(i), null, null, 0);
      } catch (io.delayq.RedisCommandException e) {
        raw = null; // another program's key of another type: no counts
      }
      buckets.add(HistoryFields.decode(Instant.ofEpochMilli((first + i) * widthMillis), width, raw));
    }
    return buckets;
  }

  /**
   * Marks a queue deleted for its history, before its keys go: for {@link #DELETED_MARK_MILLIS} no
   * client's flush writes its buckets again (a client holds unwritten counts at most {@value
   * #MINUTES_KEPT} minutes).
   */
  static void markDeleted(DelayqClient client, String queue) {
    client.await(client.async().set(Keys.bytes(Keys.historyDeleted(queue)), Keys.bytes("1"),
        io.lettuce.core.SetArgs.Builder.px(DELETED_MARK_MILLIS)).toCompletableFuture(), queue, null, 0);
  }

  /** Deletes a queue's history keys, by their computed names, at most {@code batch} per call. */
  static void deleteKeys(DelayqClient client, String queue, int batch) {
    long nowMinute = HistoryFields.epochMinute(client.redisClock().nowMillis());
    List<byte[]> keys = new ArrayList<>();
    // why: a little past both ends, for clients whose clocks differ from this one's estimate
    long minutes = HistoryFields.MINUTE_TTL_MILLIS / HistoryFields.MINUTE.toMillis() + 10;
    for (long m = nowMinute - minutes; m <= nowMinute + 10; m++) {
      keys.add(Keys.bytes(Keys.historyMinute(queue, m)));
    }
    long nowHour = HistoryFields.hourOfMinute(nowMinute);
    long hours = HistoryFields.HOUR_TTL_MILLIS / HistoryFields.HOUR.toMillis() + 1;
    for (long h = nowHour - hours; h <= nowHour + 1; h++) {
      keys.add(Keys.bytes(Keys.historyHour(queue, h)));
    }
    var redis = client.async();
    List<CompletableFuture<Long>> replies = new ArrayList<>();
    for (int from = 0; from < keys.size(); from += batch) {
      byte[][] some = keys.subList(from, Math.min(keys.size(), from + batch)).toArray(byte[][]::new);
      replies.add(redis.unlink(some).toCompletableFuture());
    }
    for (CompletableFuture<Long> reply : replies) {
      client.await(reply, queue, null, 0);
    }
  }
}
