package io.delayq.internal;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;

/**
 * One queue's keys and the arguments every partition script shares (see {@code lua/_keys.lua}):
 * the server-time slot, wake channel, partition number, dead-letter caps and idempotency window.
 * The producing, reading, operating and claiming code of a queue all run their scripts through it.
 */
final class QueueContext {
  /** Most finished ids one generation of a partition's idempotency sets holds. */
  static final int DONE_IDS_PER_GENERATION = 1_000_000;
  private static final int SHARED_ARGS = 7;

  final DelayqClient client;
  final String name;
  private final int partitionCount;
  private final byte[] wakeChannel;
  private final byte[] deadCap;
  private final byte[] deadAge;
  private final byte[] window;
  private final byte[] doneCap;
  /** This queue's meters, made on first use; see {@link #meters()}. */
  private volatile QueueMeters meters;
  /** The queue's recurring schedules, made on first use. */
  private volatile ScheduleEngine schedules;

  // why: nothing here is per partition. A handle of a 1024-partition queue used to hold every
  // partition's keys and arguments, about 650 bytes each (0.65 MB a handle); a process that
  // touched many wide queues ran out of heap. Keys are built per call instead (see Keys.partition).
  QueueContext(DelayqClient client, String name, int partitionCount) {
    this.client = client;
    this.name = name;
    this.partitionCount = partitionCount;
    this.wakeChannel = Keys.bytes(Keys.wakeChannel(name));
    ClientSettings s = client.settings();
    this.deadCap = number(Math.max(1, (s.deadLetterLimit() + partitionCount - 1) / partitionCount));
    this.deadAge = number(s.deadLetterRetention().toMillis());
    this.window = number(s.idempotencyWindow().toMillis());
    this.doneCap = number(DONE_IDS_PER_GENERATION);
  }

  /**
   * The queue's meters, marked used: made when this client first schedules, claims or settles on
   * the queue (merely looking it up or reading its stats does not count), and made again should the
   * old ones have been dropped for queues used more recently.
   */
  QueueMeters meters() {
    QueueMeters m = meters;
    if (m == null || m.retired()) {
      m = QueueMeters.both(client.meters().queue(name, () -> Operating.statsAsync(this)), client.history().queue(name));
      meters = m;
    }
    m.touch();
    return m;
  }

  ScheduleEngine schedules() {
    ScheduleEngine s = schedules;
    if (s == null) {
      synchronized (this) {
        s = schedules;
        if (s == null) {
          s = new ScheduleEngine(this);
          schedules = s;
        }
      }
    }
    return s;
  }

  int partitionCount() {
    return partitionCount;
  }

  Keys.Partition partition(int p) {
    return Keys.partition(name, p);
  }

  int partitionOf(String id) {
    return Ids.partitionOf(id, partitionCount);
  }

  String wakeChannelName() {
    return Keys.wakeChannel(name);
  }

  byte[] wakeChannel() {
    return wakeChannel;
  }

  /** Runs {@code script} on partition {@code p} with the shared arguments and then {@code own}. */
  <T> CompletableFuture<T> run(ScriptRunner runner, Script script, int p, byte[]... own) {
    return runWithKey(runner, script, p, null, own);
  }

  /**
   * As {@link #run}, with {@code extraKey} (when not null) after the partition's keys; on a Redis
   * Cluster it must be in the partition's slot.
   */
  <T> CompletableFuture<T> runWithKey(ScriptRunner runner, Script script, int p, byte[] extraKey, byte[]... own) {
    return runWithKeys(runner, script, p, extraKey == null ? new byte[0][] : new byte[][] {extraKey}, own);
  }

  /** As {@link #runWithKey}, with several keys after the partition's. */
  <T> CompletableFuture<T> runWithKeys(ScriptRunner runner, Script script, int p, byte[][] extraKeys, byte[]... own) {
    byte[][] keys = partition(p).keys();
    if (extraKeys.length > 0) {
      int base = keys.length;
      keys = java.util.Arrays.copyOf(keys, base + extraKeys.length);
      System.arraycopy(extraKeys, 0, keys, base, extraKeys.length);
    }
    byte[][] args = new byte[SHARED_ARGS + own.length][];
    args[0] = ServerTime.IN_SCRIPT;
    args[1] = wakeChannel;
    args[2] = number(p);
    args[3] = deadCap;
    args[4] = deadAge;
    args[5] = window;
    args[6] = doneCap;
    System.arraycopy(own, 0, args, SHARED_ARGS, own.length);
    return runner.run(script, keys, args);
  }

  /**
   * Runs {@code script} on keys of several partitions at once ({@code lua/adopt.lua}), with the
   * shared arguments and then {@code own}; the script says which partition each key belongs to.
   * Only valid where all the keys are in one slot.
   */
  <T> CompletableFuture<T> runAcross(ScriptRunner runner, Script script, byte[][] keys, byte[]... own) {
    byte[][] args = new byte[SHARED_ARGS + own.length][];
    args[0] = ServerTime.IN_SCRIPT;
    args[1] = wakeChannel;
    args[2] = number(-1);
    args[3] = deadCap;
    args[4] = deadAge;
    args[5] = window;
    args[6] = doneCap;
    System.arraycopy(own, 0, args, SHARED_ARGS, own.length);
    return runner.run(script, keys, args);
  }

  /** Waits for a caller's synchronous call and maps its failure. */
  <T> T await(CompletableFuture<T> future, String id) {
    return client.await(future, name, id, 0);
  }

  <T> T await(CompletableFuture<T> future, String id, long token) {
    return client.await(future, name, id, token);
  }

  void checkOpen(String operation) {
    client.checkOpen(operation + " on queue '" + name + "'");
  }

  static byte[] number(long n) {
    return Long.toString(n).getBytes(StandardCharsets.US_ASCII);
  }

  static String text(Object o) {
    if (o == null) {
      return "";
    }
    return o instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : o.toString();
  }
}
