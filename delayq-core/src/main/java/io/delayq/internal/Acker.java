package io.delayq.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Acks of one partition, batched: while one ack call is in flight, finished deliveries gather and
 * go together in the next call. Busy workers send few calls; an idle one acks at once.
 */
final class Acker {
  private static final Logger log = LoggerFactory.getLogger(Acker.class);
  private static final int MAX_PER_CALL = Settling.MAX_ACKS_PER_CALL;

  private final Settling settling;
  private final int partition;
  private final AtomicInteger pendingWrites;
  private final ConcurrentLinkedQueue<Settling.Held> pending = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean sending = new AtomicBoolean();

  Acker(Settling settling, int partition, AtomicInteger pendingWrites) {
    this.settling = settling;
    this.partition = partition;
    this.pendingWrites = pendingWrites;
  }

  void add(Delivery delivery) {
    pendingWrites.incrementAndGet();
    pending.add(new Settling.Held(delivery.id(), delivery.token()));
    flush();
  }

  private void flush() {
    while (!pending.isEmpty() && sending.compareAndSet(false, true)) {
      List<Settling.Held> batch = new ArrayList<>();
      Settling.Held next;
      while (batch.size() < MAX_PER_CALL && (next = pending.poll()) != null) {
        batch.add(next);
      }
      if (batch.isEmpty()) {
        sending.set(false);
        continue;
      }
      settling.ackAll(partition, batch).whenComplete((done, error) -> {
        if (error != null) {
          log.warn("could not ack {} job(s) of queue '{}'; they run again when their leases end: {}",
              batch.size(), settling.queueName(), Errors.unwrap(error).toString());
        } else {
          for (int i = 0; i < batch.size(); i++) {
            if (done.get(i) != 1L) {
              log.warn("ack of job '{}' (token {}) of queue '{}' was refused: its lease had ended, so it is"
                  + " delivered again; use a longer lease or extend it", batch.get(i).id(), batch.get(i).token(),
                  settling.queueName());
            }
          }
        }
        pendingWrites.addAndGet(-batch.size());
        sending.set(false);
        flush();
      });
    }
  }
}
