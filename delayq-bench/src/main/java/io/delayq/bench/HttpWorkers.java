package io.delayq.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntFunction;

/**
 * The HTTP scenario's workers, as a worker in another language would be written: one thread per
 * keep-alive connection, each in a loop of long-poll claim ({@code POST /v1/queues/{q}/claim?max=N
 * &waitMs=W&leaseMs=L}), then settling what it got, either in one {@code POST /v1/queues/{q}/settle}
 * call or with one {@code POST .../jobs/{id}/ack} per job. A job counts as received when its claim's
 * answer has been read whole; the handler does nothing else.
 */
final class HttpWorkers {
  static final ObjectMapper JSON = new ObjectMapper();
  /** Longest a claim waits for a job, in ms. */
  static final long WAIT_MS = 1_000;
  /** The lease every claim asks for: long enough that no job of a run is ever redelivered. */
  static final long LEASE_MS = 30_000;
  private static final long BACKOFF_MILLIS = 100;

  /** How a worker settles the jobs of one claim. */
  enum Settling {
    /** One {@code settle} call per claim answer, every job acked in it. */
    SETTLE("settle"),
    /** One {@code ack} call per job. */
    ACK("per-job ack");

    private final String label;

    Settling(String label) {
      this.label = label;
    }

    /** The name in the report's table. */
    String label() {
      return label;
    }
  }

  /** What went wrong while the workers ran, counted: none of it should happen. */
  static final class Faults {
    final LongAdder settleErrors = new LongAdder();
    final LongAdder claimErrors = new LongAdder();
    final LongAdder reconnects = new LongAdder();
    private final AtomicReference<String> first = new AtomicReference<>();

    void note(String what) {
      first.compareAndSet(null, what);
    }

    /** The first fault seen, or an empty string. */
    String first() {
      String f = first.get();
      return f == null ? "" : f;
    }

    boolean any() {
      return first.get() != null;
    }
  }

  private final List<Thread> threads = new ArrayList<>();
  private final CountDownLatch go = new CountDownLatch(1);
  private volatile boolean stopping;

  private HttpWorkers() {}

  /**
   * Starts a worker on each of {@code connections} (replacing a connection that breaks in place),
   * held until {@link #go()}; worker {@code i} settles as {@code settlingOfWorker} says for {@code i}.
   */
  static HttpWorkers start(BenchServer server, List<KeepAliveConnection> connections, String queue,
      int claimMax, IntFunction<Settling> settlingOfWorker, DeliveryHandler handler, Faults faults) {
    HttpWorkers workers = new HttpWorkers();
    String claim = "/v1/queues/" + queue + "/claim?max=" + claimMax + "&waitMs=" + WAIT_MS + "&leaseMs=" + LEASE_MS;
    for (int i = 0; i < connections.size(); i++) {
      int slot = i;
      Settling settling = settlingOfWorker.apply(i);
      Thread t = new Thread(() -> workers.loop(server, connections, slot, queue, claim, settling, handler, faults),
          "bench-http-worker-" + i);
      t.setDaemon(true);
      workers.threads.add(t);
      t.start();
    }
    return workers;
  }

  /** Lets every worker make its first claim. */
  void go() {
    go.countDown();
  }

  /**
   * Stops the workers and waits for them: each finishes the claim it is in (at most {@link
   * #WAIT_MS} when it waits) and settles what that claim brought.
   */
  void stop() {
    stopping = true;
    go.countDown();
    Threads.joinAll(threads);
  }

  private void loop(BenchServer server, List<KeepAliveConnection> connections, int slot, String queue, String claim,
      Settling settling, DeliveryHandler handler, Faults faults) {
    try {
      go.await();
    } catch (InterruptedException e) {
      return;
    }
    while (!stopping) {
      KeepAliveConnection connection = connections.get(slot);
      try {
        KeepAliveConnection.Answer answer = connection.send("POST", claim, null);
        long receivedMicros = BenchClock.nowMicros();
        if (answer.status() != 200) {
          faults.claimErrors.increment();
          faults.note("claim answered " + answer.status() + ": " + answer.text());
          Threads.sleep(BACKOFF_MILLIS);
          continue;
        }
        JsonNode jobs = JSON.readTree(answer.body());
        for (JsonNode job : jobs) {
          handler.delivered(index(job.path("id").asText()), job.path("runAt").asLong() * 1_000, receivedMicros);
        }
        if (!jobs.isEmpty()) {
          settle(connection, queue, jobs, settling, faults);
        }
      } catch (IOException | RuntimeException e) {
        faults.note("worker " + slot + ": " + e);
        if (stopping) {
          return;
        }
        KeepAliveConnection fresh = reconnect(server, connection, faults);
        if (fresh == null) {
          return;
        }
        connections.set(slot, fresh);
      }
    }
  }

  private static void settle(KeepAliveConnection connection, String queue, JsonNode jobs, Settling settling,
      Faults faults) throws IOException {
    if (settling == Settling.SETTLE) {
      ArrayNode body = JSON.createArrayNode();
      for (JsonNode job : jobs) {
        ObjectNode element = body.addObject();
        element.set("id", job.get("id"));
        element.set("token", job.get("token"));
        element.put("outcome", "ack");
      }
      KeepAliveConnection.Answer answer =
          connection.send("POST", "/v1/queues/" + queue + "/settle", JSON.writeValueAsBytes(body));
      if (answer.status() != 200) {
        faults.settleErrors.add(jobs.size());
        faults.note("settle answered " + answer.status() + ": " + answer.text());
        return;
      }
      JsonNode results = JSON.readTree(answer.body());
      if (results.size() != jobs.size()) {
        faults.settleErrors.add(jobs.size());
        faults.note("settle of " + jobs.size() + " jobs answered " + results.size() + " elements");
        return;
      }
      for (JsonNode result : results) {
        if (result.path("status").asInt() != 204) {
          faults.settleErrors.increment();
          faults.note("settle element answered " + result);
        }
      }
    } else {
      for (JsonNode job : jobs) {
        ObjectNode body = JSON.createObjectNode();
        body.set("token", job.get("token"));
        // why: the ids are the bench's job numbers, digits only, so they need no percent-encoding
        KeepAliveConnection.Answer answer = connection.send("POST",
            "/v1/queues/" + queue + "/jobs/" + job.get("id").asText() + "/ack", JSON.writeValueAsBytes(body));
        if (answer.status() != 204) {
          faults.settleErrors.increment();
          faults.note("ack answered " + answer.status() + ": " + answer.text());
        }
      }
    }
  }

  /** A fresh connection in place of a broken one, or null when none can be opened. */
  private static KeepAliveConnection reconnect(BenchServer server, KeepAliveConnection broken, Faults faults) {
    broken.close();
    faults.reconnects.increment();
    Threads.sleep(BACKOFF_MILLIS);
    try {
      return HttpScenario.connect(server);
    } catch (IOException e) {
      faults.note("cannot reconnect: " + e);
      return null;
    }
  }

  /** The job number an id names, or -1 (counted as unexpected) for an id the bench never scheduled. */
  private static int index(String id) {
    try {
      return Integer.parseInt(id);
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
