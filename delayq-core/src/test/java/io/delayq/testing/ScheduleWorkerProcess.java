package io.delayq.testing;

import io.delayq.Delayq;
import io.delayq.WorkerOptions;
import io.delayq.Workers;

/**
 * A worker process for SchedulesRealTimeIT: runs workers on one queue and prints a line per job,
 * {@code FIRED <id> <due epoch ms> <started epoch ms>}, until its standard input closes.
 */
public final class ScheduleWorkerProcess {
  private ScheduleWorkerProcess() {}

  public static void main(String[] args) throws Exception {
    try (Delayq delayq = Delayq.connect(args[0]);
        Workers workers = delayq.queue(args[1]).startWorkers(job -> {
          long started = System.currentTimeMillis();
          synchronized (System.out) {
            System.out.println("FIRED " + job.id() + " " + job.runAt().toEpochMilli() + " " + started);
            System.out.flush();
          }
        }, WorkerOptions.builder().build())) {
      System.out.println("READY");
      System.out.flush();
      while (System.in.read() >= 0) {
        // why: the test stops this process by closing its input, so no worker is left behind
      }
    }
  }
}
