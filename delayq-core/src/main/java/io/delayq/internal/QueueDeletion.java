package io.delayq.internal;

import io.delayq.QueueBusyException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Deletes a queue in bounded steps. First every partition is paused, and the leases still running
 * counted ({@code hold-for-delete.lua}): from then on no claim leases anything, so the count can
 * only fall, and a delete that is not forced is refused before anything is removed. Then each
 * partition is purged ({@code purge.lua}) at most {@link #JOBS_PER_CALL} jobs per call, all
 * partitions in parallel, until each reports itself empty; a last pass over every partition picks
 * up jobs scheduled meanwhile and lifts the pauses. The queue's recurring schedules go before the
 * purge. The settings hash goes next, so that {@code
 * existingQueue} no longer finds the queue (and a pause or resume writes nothing more, see {@code
 * Operating#pause}), then every partition's pause flag once more, and the name last.
 */
final class QueueDeletion {
  /** Most jobs one purge call removes: Redis serves other clients between calls. */
  static final int JOBS_PER_CALL = 1000;

  private final QueueContext queue;

  QueueDeletion(QueueContext queue) {
    this.queue = queue;
  }

  /** History keys unlinked per call: one slot (the queue's history tag), a bounded command. */
  static final int HISTORY_KEYS_PER_CALL = 500;

  long delete(boolean force) {
    queue.checkOpen("delete");
    int partitions = queue.partitionCount();
    List<CompletableFuture<List<Object>>> holds = new ArrayList<>(partitions);
    for (int p = 0; p < partitions; p++) {
      holds.add(queue.run(queue.client.scripts(), Script.HOLD_FOR_DELETE, p));
    }
    boolean[] pausedBefore = new boolean[partitions];
    long running = 0;
    for (int p = 0; p < partitions; p++) {
      List<Object> reply = queue.await(holds.get(p), null);
      pausedBefore[p] = (Long) reply.get(0) == 1L;
      running += (Long) reply.get(1);
    }
    if (running > 0 && !force) {
      release(pausedBefore);
      throw new QueueBusyException(
          queue.name, running, 0,
          "queue '" + queue.name + "' was not deleted: workers hold " + running + " of its jobs now. Pause the"
              + " queue so that no more are claimed and delete it once its stats show no active job, or delete"
              + " it with force to remove held jobs too (their workers' acks are then refused)");
    }
    var redis = queue.client.async();
    // why: before the purge, so that no tending of a schedule puts an occurrence back meanwhile
    for (int p = 0; p < partitions; p++) {
      queue.await(redis.unlink(Keys.schedules(queue.name, p)).toCompletableFuture(), null);
    }
    long deleted = purge(force);
    queue.await(redis.del(Keys.bytes(Keys.settings(queue.name))).toCompletableFuture(), null);
    // why: a pause racing this delete may have set partition flags after the purge lifted them;
    // it did so before its settings write, which found the hash or not: if it did, the flags are
    // older than the delete of the hash and go here; if not, that pause removes them itself
    List<CompletableFuture<Long>> flags = new ArrayList<>(partitions);
    for (int p = 0; p < partitions; p++) {
      flags.add(redis.del(queue.partition(p).paused()).toCompletableFuture());
    }
    flags.forEach(f -> queue.await(f, null));
    queue.await(redis.srem(Keys.bytes(Keys.registry()), Keys.bytes(queue.name)).toCompletableFuture(), null);
    queue.client.history().forget(queue.name);
    HistoryRecorder.markDeleted(queue.client, queue.name);
    HistoryRecorder.deleteKeys(queue.client, queue.name, HISTORY_KEYS_PER_CALL);
    queue.client.registry().forget(queue.name);
    return deleted;
  }

  /** Purges every partition until all are empty, then once more with the pauses lifted. */
  private long purge(boolean force) {
    int partitions = queue.partitionCount();
    byte[] batch = QueueContext.number(JOBS_PER_CALL);
    byte[] forced = Keys.bytes(force ? "1" : "0");
    long deleted = 0;
    for (String pass : new String[] {"0", "1"}) {
      boolean[] empty = new boolean[partitions];
      int left = partitions;
      while (left > 0) {
        List<CompletableFuture<List<Object>>> steps = new ArrayList<>(partitions);
        for (int p = 0; p < partitions; p++) {
          steps.add(empty[p] ? null : queue.run(queue.client.scripts(), Script.PURGE, p, batch, forced, Keys.bytes(pass)));
        }
        long busy = 0;
        for (int p = 0; p < partitions; p++) {
          if (steps.get(p) == null) {
            continue;
          }
          List<Object> reply = queue.await(steps.get(p), null);
          long removed = (Long) reply.get(0);
          if (removed < 0) {
            busy += (Long) reply.get(1);
            continue;
          }
          deleted += removed;
          if ((Long) reply.get(1) == 1L) {
            empty[p] = true;
            left--;
          }
        }
        if (busy > 0) {
          throw new QueueBusyException(
              queue.name, busy, deleted,
              "queue '" + queue.name + "' was only partly deleted: " + deleted + " jobs were deleted, and then"
                  + " workers held " + busy + " more (the queue was resumed while the delete ran). It stays paused;"
                  + " delete it again once its stats show no active job, or with force");
        }
      }
    }
    return deleted;
  }

  /** Lifts the pauses the refused delete set, and wakes the workers it held back. */
  private void release(boolean[] pausedBefore) {
    var redis = queue.client.async();
    for (int p = 0; p < pausedBefore.length; p++) {
      if (!pausedBefore[p]) {
        queue.await(redis.del(queue.partition(p).paused()).toCompletableFuture(), null);
        queue.await(redis.publish(queue.wakeChannel(), Keys.bytes(p + ":0")).toCompletableFuture(), null);
      }
    }
  }
}
