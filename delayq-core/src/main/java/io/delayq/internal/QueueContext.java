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
  private final Keys.Partition[] partitions;
  private final byte[] wakeChannel;
  private final byte[][][] shared;

  QueueContext(DelayqClient client, String name, int partitionCount) {
    this.client = client;
    this.name = name;
    this.partitions = new Keys.Partition[partitionCount];
    this.wakeChannel = Keys.bytes(Keys.wakeChannel(name));
    this.shared = new byte[partitionCount][][];
    ClientSettings s = client.settings();
    byte[] deadCap = number(Math.max(1, (s.deadLetterLimit() + partitionCount - 1) / partitionCount));
    byte[] deadAge = number(s.deadLetterRetention().toMillis());
    byte[] window = number(s.idempotencyWindow().toMillis());
    byte[] doneCap = number(DONE_IDS_PER_GENERATION);
    for (int p = 0; p < partitionCount; p++) {
      partitions[p] = Keys.partition(name, p);
      shared[p] = new byte[][] {ServerTime.IN_SCRIPT, wakeChannel, number(p), deadCap, deadAge, window, doneCap};
    }
  }

  int partitionCount() {
    return partitions.length;
  }

  Keys.Partition partition(int p) {
    return partitions[p];
  }

  int partitionOf(String id) {
    return Ids.partitionOf(id, partitions.length);
  }

  String wakeChannelName() {
    return Keys.wakeChannel(name);
  }

  byte[] wakeChannel() {
    return wakeChannel;
  }

  /** Runs {@code script} on partition {@code p} with the shared arguments and then {@code own}. */
  <T> CompletableFuture<T> run(ScriptRunner runner, Script script, int p, byte[]... own) {
    byte[][] args = new byte[SHARED_ARGS + own.length][];
    System.arraycopy(shared[p], 0, args, 0, SHARED_ARGS);
    System.arraycopy(own, 0, args, SHARED_ARGS, own.length);
    return runner.run(script, partitions[p].keys(), args);
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
