package io.delayq.internal;

import io.delayq.HistoryBucket;
import io.delayq.Lateness;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client's share of the history in Redis: what happens to each queue's jobs is counted in memory,
 * per queue and for all queues, by the Redis-clock minute it happened in, and added to the minute
 * and hour buckets every flush interval (one pipelined batch; see {@code lua/history-add.lua}) and
 * at close. A flush that fails puts its counts back for the next one; memory holds counts only,
 * a few minutes' worth per queue while Redis answers.
 */
final class HistoryRecorder implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(HistoryRecorder.class);
  /** Minutes a drained, idle entry is kept before it is dropped; a late event still finds it. */
  private static final long IDLE_MINUTES_KEPT = 2;

  private final DelayqClient client;
  private final RedisClock clock;
  private final Duration flushInterval;
  private final boolean enabled;
  private final Map<String, Minutes> queues = new ConcurrentHashMap<>();
  private final Minutes all = new Minutes();
  private final AtomicBoolean failing = new AtomicBoolean();
  private final Object flushLock = new Object();
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
    queues.remove(queue);
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
      queues.forEach((queue, minutes) -> minutes.drainInto(writes, nowMinute,
          m -> Keys.historyMinute(queue, m), h -> Keys.historyHour(queue, h)));
      all.drainInto(writes, nowMinute, Keys::allHistoryMinute, Keys::allHistoryHour);
      if (writes.isEmpty()) {
        return true;
      }
      long sent = clock.wallMillis();
      CompletableFuture<Void> time;
      try {
        time = clock.refresh(client.async().time().toCompletableFuture(), sent);
      } catch (RuntimeException e) {
        time = CompletableFuture.completedFuture(null);
      }
      List<CompletableFuture<Long>> replies = new ArrayList<>(writes.size());
      for (Write w : writes) {
        replies.add(send(w));
      }
      Throwable failure = null;
      for (int i = 0; i < writes.size(); i++) {
        try {
          client.await(replies.get(i), null, null, 0);
        } catch (RuntimeException e) {
          failure = failure == null ? e : failure;
          writes.get(i).putBack();
        }
      }
      time.join();
      if (failure != null) {
        if (!failing.getAndSet(true)) {
          log.warn("cannot add this client's history counts to {}; they are kept for the next flush"
              + " (logged once until it works again): {}", client.displayUri(), failure.toString());
        }
        return false;
      }
      if (failing.getAndSet(false)) {
        log.info("history counts written to {} again", client.displayUri());
      }
      return true;
    }
  }

  private CompletableFuture<Long> send(Write w) {
    List<byte[]> args = new ArrayList<>();
    args.add(ServerTime.IN_SCRIPT);
    args.add(QueueContext.number(HistoryFields.MINUTE_TTL_MILLIS));
    args.add(QueueContext.number(HistoryFields.HOUR_TTL_MILLIS));
    args.addAll(HistoryCounts.arguments(w.taken));
    try {
      return client.scripts().run(Script.HISTORY_ADD, new byte[][] {Keys.bytes(w.minuteKey), Keys.bytes(w.hourKey)},
          args.toArray(byte[][]::new));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** One minute's drained counts of one queue (or of all), on their way to their two buckets. */
  private record Write(Minutes owner, long minute, long[] taken, String minuteKey, String hourKey) {
    void putBack() {
      owner.at(minute).restore(taken);
    }
  }

  /** One queue's (or all queues') counts by minute. */
  static final class Minutes {
    private final Map<Long, HistoryCounts> byMinute = new ConcurrentHashMap<>();

    HistoryCounts at(long minute) {
      HistoryCounts counts = byMinute.get(minute);
      return counts != null ? counts : byMinute.computeIfAbsent(minute, m -> new HistoryCounts());
    }

    void drainInto(List<Write> writes, long nowMinute, LongFunction<String> minuteKey, LongFunction<String> hourKey) {
      long tooOld = nowMinute - HistoryFields.MINUTE_TTL_MILLIS / HistoryFields.MINUTE.toMillis();
      for (Map.Entry<Long, HistoryCounts> e : byMinute.entrySet()) {
        long minute = e.getKey();
        long[] taken = e.getValue().drain();
        if (minute < tooOld) {
          // why: a bucket past its time to live would expire at once; counts kept through a day-long
          // outage are dropped rather than grow without end
          byMinute.remove(minute, e.getValue());
          continue;
        }
        if (taken == null) {
          if (minute < nowMinute - IDLE_MINUTES_KEPT) {
            byMinute.remove(minute, e.getValue());
          }
          continue;
        }
        writes.add(new Write(this, minute, taken, minuteKey.apply(minute),
            hourKey.apply(HistoryFields.hourOfMinute(minute))));
      }
    }
  }

  /** Counts one queue's events, and all queues' with them. */
  private final class QueueHistory implements QueueMeters {
    private final String queue;

    QueueHistory(String queue) {
      this.queue = queue;
    }

    private void count(int slot, long n) {
      if (n <= 0) {
        return;
      }
      long minute = HistoryFields.epochMinute(clock.nowMillis());
      queues.computeIfAbsent(queue, q -> new Minutes()).at(minute).add(slot, n);
      all.at(minute).add(slot, n);
    }

    @Override
    public void scheduled(int created, int replaced, int kept) {
      count(HistoryCounts.SCHEDULED, (long) created + replaced);
    }

    @Override
    public void delivered(long latenessMicros) {
      long minute = HistoryFields.epochMinute(clock.nowMillis());
      int bucket = Lateness.bucketOf(latenessMicros);
      HistoryCounts own = queues.computeIfAbsent(queue, q -> new Minutes()).at(minute);
      own.add(HistoryCounts.DELIVERED, 1);
      own.addLateness(bucket);
      HistoryCounts total = all.at(minute);
      total.add(HistoryCounts.DELIVERED, 1);
      total.addLateness(bucket);
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
